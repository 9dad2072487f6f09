//! npm: `package.json`, `package-lock.json` (v1–v3), `pnpm-lock.yaml`, `yarn.lock` (classic
//! and berry) and `bun.lock`.

use std::collections::BTreeMap;
use std::io::{BufRead, Read};
use std::path::Path;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::Value;

use super::input::{json_error, yaml_error};
use super::locate::{KeyCursor, LineIndex, at, key_position, to_u32, yaml_key_lines};
use super::ordered::Ordered;
use super::sink::Sink;
use super::tools::Role;
use super::{DepKind, Ecosystem, RuntimeKind};

/// `package.json` sections that declare dependencies, and the kind each declares.
const SECTIONS: &[(&str, DepKind)] = &[
    ("dependencies", DepKind::Normal),
    ("devDependencies", DepKind::Dev),
    ("peerDependencies", DepKind::Peer),
    ("optionalDependencies", DepKind::Optional),
];

/// Test runners recognised in a `test` script, by the command that starts them.
const TEST_RUNNERS: &[&str] = &[
    "vitest",
    "jest",
    "mocha",
    "ava",
    "playwright",
    "cypress",
    "node --test",
];
/// Build tools recognised in a `build` script.
const BUILD_TOOLS: &[&str] = &[
    "vite", "webpack", "rollup", "esbuild", "tsup", "parcel", "next", "nuxt", "turbo", "tsc",
];

/// Reads a `package.json`.
pub(crate) fn read_package_json(sink: &mut Sink, rel: &Path, text: &str) {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(err) => return json_error(sink, rel, &err),
    };
    if let Some(name) = value.get("name").and_then(Value::as_str) {
        sink.own(Ecosystem::Npm, name);
    }
    let index = LineIndex::new(text);
    for &(section, kind) in SECTIONS {
        read_section(sink, rel, text, &index, &value, section, kind);
    }
    read_engines(sink, rel, text, &index, &value);
    read_package_manager(sink, rel, text, &index, &value);
    read_scripts(sink, rel, text, &index, &value);
}

fn read_section(
    sink: &mut Sink,
    rel: &Path,
    text: &str,
    index: &LineIndex<'_>,
    value: &Value,
    section: &str,
    kind: DepKind,
) {
    let Some(entries) = value.get(section).and_then(Value::as_object) else {
        return;
    };
    for (name, constraint) in entries {
        let Some(constraint) = constraint.as_str() else {
            continue;
        };
        let position = key_position(text, index, &[section], name);
        sink.declare(
            Ecosystem::Npm,
            name,
            kind,
            Some(at(constraint, rel, position)),
        );
    }
}

fn read_engines(sink: &mut Sink, rel: &Path, text: &str, index: &LineIndex<'_>, value: &Value) {
    let Some(engines) = value.get("engines").and_then(Value::as_object) else {
        return;
    };
    let runtimes = engines
        .iter()
        .filter(|(engine, _)| matches!(engine.as_str(), "node" | "bun" | "deno"));
    for (engine, range) in runtimes {
        let Some(range) = range.as_str() else {
            continue;
        };
        let position = key_position(text, index, &["engines"], engine);
        sink.runtime(engine, RuntimeKind::Range, at(range, rel, position));
    }
}

fn read_package_manager(
    sink: &mut Sink,
    rel: &Path,
    text: &str,
    index: &LineIndex<'_>,
    value: &Value,
) {
    let Some(field) = value.get("packageManager").and_then(Value::as_str) else {
        return;
    };
    let name = field.split('@').next().unwrap_or(field);
    let position = key_position(text, index, &[], "packageManager");
    let evidence = at(format!("packageManager: {field}"), rel, position);
    sink.tool(Role::PackageManager, name, evidence);
}

fn read_scripts(sink: &mut Sink, rel: &Path, text: &str, index: &LineIndex<'_>, value: &Value) {
    let Some(scripts) = value.get("scripts").and_then(Value::as_object) else {
        return;
    };
    for (script, command) in scripts {
        let Some(command) = command.as_str() else {
            continue;
        };
        let (role, known) = match script.as_str() {
            s if s == "test" || s.starts_with("test:") => (Role::TestRunner, TEST_RUNNERS),
            s if s == "build" || s.starts_with("build:") || s == "dev" => {
                (Role::BuildTool, BUILD_TOOLS)
            }
            _ => continue,
        };
        let Some(tool) = known.iter().find(|tool| mentions_command(command, tool)) else {
            continue;
        };
        let position = key_position(text, index, &["scripts"], script);
        let evidence = at(format!("scripts.{script}: {command}"), rel, position);
        sink.tool(role, tool.split(' ').next().unwrap_or(tool), evidence);
    }
}

/// Whether `command` runs `tool` as a command word (`vitest run`, `npx jest`), not as a
/// substring of another word (`nextra`).
fn mentions_command(command: &str, tool: &str) -> bool {
    let tool_words: Vec<&str> = tool.split(' ').collect();
    command.split(['&', '|', ';']).any(|part| {
        let words: Vec<&str> = part.split_whitespace().collect();
        words
            .windows(tool_words.len())
            .any(|w| w == tool_words.as_slice())
    })
}

#[derive(Deserialize)]
struct PackageLock {
    #[serde(default)]
    packages: Option<Ordered<LockedPackage>>,
    #[serde(default)]
    dependencies: Option<Ordered<LockedPackage>>,
}

#[derive(Deserialize)]
struct LockedPackage {
    version: Option<String>,
    #[serde(default)]
    link: bool,
    /// v1 nests further trees here; they are skipped without being kept.
    #[serde(default, rename = "dependencies")]
    _nested: Option<IgnoredAny>,
}

/// Reads a `package-lock.json` or `npm-shrinkwrap.json` (lockfile v1, v2 or v3), keeping
/// only the hoisted packages, which are the versions the project's own code imports.
pub(crate) fn read_package_lock(sink: &mut Sink, rel: &Path, text: &str) {
    let lock: PackageLock = match serde_json::from_str(text) {
        Ok(lock) => lock,
        Err(err) => return json_error(sink, rel, &err),
    };
    let index = LineIndex::new(text);
    let mut cursor = KeyCursor::new(text);
    let mut indent = None;
    lock_evidence(sink, rel, "npm");
    if let Some(packages) = lock.packages {
        cursor.seek_key("packages");
        for (key, package) in packages.0 {
            let Some(name) = hoisted_name(&key) else {
                continue;
            };
            let offset = cursor.seek_entry(&key, &mut indent);
            lock_package(sink, rel, &index, name, package, offset);
        }
    } else if let Some(dependencies) = lock.dependencies {
        cursor.seek_key("dependencies");
        for (name, package) in dependencies.0 {
            let offset = cursor.seek_entry(&name, &mut indent);
            lock_package(sink, rel, &index, &name, package, offset);
        }
    }
}

fn lock_package(
    sink: &mut Sink,
    rel: &Path,
    index: &LineIndex<'_>,
    name: &str,
    package: LockedPackage,
    offset: Option<usize>,
) {
    let Some(version) = package.version.filter(|_| !package.link) else {
        return;
    };
    let position = offset.map_or((1, 1), |o| index.position(o));
    sink.lock(Ecosystem::Npm, name, at(version, rel, position));
}

/// `node_modules/@scope/x` -> `@scope/x`; nested (non-hoisted) and workspace keys -> `None`.
fn hoisted_name(key: &str) -> Option<&str> {
    let name = key.strip_prefix("node_modules/")?;
    (!name.contains("/node_modules/")).then_some(name)
}

fn lock_evidence(sink: &mut Sink, rel: &Path, manager: &str) {
    let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    sink.tool(Role::PackageManager, manager, at(name, rel, (1, 1)));
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PnpmLock {
    #[serde(default)]
    importers: BTreeMap<String, PnpmImporter>,
    #[serde(flatten)]
    root: PnpmImporter,
    #[serde(default)]
    packages: BTreeMap<String, IgnoredAny>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct PnpmImporter {
    #[serde(default)]
    dependencies: BTreeMap<String, PnpmDependency>,
    #[serde(default)]
    dev_dependencies: BTreeMap<String, PnpmDependency>,
    #[serde(default)]
    optional_dependencies: BTreeMap<String, PnpmDependency>,
    /// pnpm's own environment (pnpm 11's first document): not the project's packages.
    #[serde(default)]
    config_dependencies: Option<IgnoredAny>,
    #[serde(default)]
    package_manager_dependencies: Option<IgnoredAny>,
}

impl PnpmImporter {
    fn is_environment(&self) -> bool {
        (self.config_dependencies.is_some() || self.package_manager_dependencies.is_some())
            && self.dependencies.is_empty()
            && self.dev_dependencies.is_empty()
            && self.optional_dependencies.is_empty()
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PnpmDependency {
    /// Lockfile v5: the version alone.
    Version(String),
    /// Lockfile v6 and later: specifier and version.
    Entry { version: String },
}

/// Reads a `pnpm-lock.yaml` (v5 to v9): the importers' direct dependencies and every package.
/// pnpm 11 and later may write several YAML documents, `---` apart: an environment document
/// (pnpm's own `packageManagerDependencies` and `configDependencies`) before the project's
/// lockfile. Each document is read in place, so lines stay the file's; the environment's
/// packages are pnpm's, not the project's, and are left out.
pub(crate) fn read_pnpm_lock(sink: &mut Sink, rel: &Path, text: &str) {
    lock_evidence(sink, rel, "pnpm");
    for document in yaml_documents(text) {
        if !document.trim().is_empty() {
            read_pnpm_document(sink, rel, &document);
        }
    }
}

/// Each YAML document of `text`, with every line outside it blanked, so positions in one
/// are positions in the file. A text without a `---` line is its one document.
fn yaml_documents(text: &str) -> Vec<std::borrow::Cow<'_, str>> {
    let is_separator = |line: &str| line.trim_end() == "---";
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let starts: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| is_separator(line))
        .map(|(at, _)| at)
        .collect();
    let leading_only = starts.len() == 1
        && lines[..starts[0]]
            .iter()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'));
    if starts.is_empty() || leading_only {
        return vec![std::borrow::Cow::Borrowed(text)];
    }
    let mut bounds: Vec<usize> = Vec::new();
    if !lines[..starts[0]].iter().all(|l| l.trim().is_empty()) {
        bounds.push(0);
    }
    bounds.extend(starts.iter().map(|s| s + 1));
    bounds
        .iter()
        .enumerate()
        .map(|(index, &from)| {
            let to = bounds
                .get(index + 1)
                .map_or(lines.len(), |next| next.saturating_sub(1));
            let document: String = lines
                .iter()
                .enumerate()
                .map(|(at, line)| {
                    if (from..to).contains(&at) {
                        std::borrow::Cow::Borrowed(*line)
                    } else if line.ends_with('\n') {
                        std::borrow::Cow::Borrowed("\n")
                    } else {
                        std::borrow::Cow::Borrowed("")
                    }
                })
                .collect();
            std::borrow::Cow::Owned(document)
        })
        .collect()
}

fn read_pnpm_document(sink: &mut Sink, rel: &Path, text: &str) {
    let lock: PnpmLock = match serde_norway::from_str(text) {
        Ok(lock) => lock,
        Err(err) => return yaml_error(sink, rel, &err),
    };
    let environment = !lock.importers.is_empty()
        && lock.importers.values().all(PnpmImporter::is_environment)
        || lock.importers.is_empty() && lock.root.is_environment();
    if environment {
        return;
    }
    let lines = yaml_key_lines(text, |path| {
        matches!(path, ["importers", _, _, _] | ["packages", _] | [_, _])
    });
    let importers = lock
        .importers
        .iter()
        .map(|(k, v)| (format!("importers/{k}/"), v));
    for (prefix, importer) in importers.chain([(String::new(), &lock.root)]) {
        read_pnpm_importer(sink, rel, &lines, &prefix, importer);
    }
    for key in lock.packages.keys() {
        let Some((name, version)) = pnpm_package_key(key) else {
            continue;
        };
        let position = lines
            .get(&format!("packages/{key}"))
            .copied()
            .unwrap_or((1, 1));
        sink.lock(Ecosystem::Npm, name, at(version, rel, position));
    }
}

fn read_pnpm_importer(
    sink: &mut Sink,
    rel: &Path,
    lines: &std::collections::HashMap<String, (u32, u32)>,
    prefix: &str,
    importer: &PnpmImporter,
) {
    let sections = [
        ("dependencies", &importer.dependencies),
        ("devDependencies", &importer.dev_dependencies),
        ("optionalDependencies", &importer.optional_dependencies),
    ];
    for (section, deps) in sections {
        for (name, dep) in deps {
            let version = match dep {
                PnpmDependency::Version(v) | PnpmDependency::Entry { version: v } => v,
            };
            // Peer suffixes `18.2.0(react@18.2.0)` are not part of the version.
            let version = version.split('(').next().unwrap_or(version);
            if version.starts_with("link:") || version.starts_with("file:") {
                continue;
            }
            let key = format!("{prefix}{section}/{name}");
            let position = lines.get(&key).copied().unwrap_or((1, 1));
            sink.lock(Ecosystem::Npm, name, at(version, rel, position));
        }
    }
}

/// `/@scope/x@1.0.0(peer@1)` (v6), `@scope/x@1.0.0` (v9), `/x/1.0.0` (v5) -> name and version.
fn pnpm_package_key(key: &str) -> Option<(&str, &str)> {
    let key = key.strip_prefix('/').unwrap_or(key);
    let key = key.split('(').next().unwrap_or(key);
    let split = key.get(1..)?.find('@').map(|i| i + 1);
    let (name, version) = match split {
        Some(i) => (&key[..i], &key[i + 1..]),
        None => key.rsplit_once('/')?,
    };
    (!name.is_empty() && !version.is_empty()).then_some((name, version))
}

/// Reads a `yarn.lock`, classic (v1) or berry, line by line so that memory stays bounded
/// however large the file is.
pub(crate) fn read_yarn_lock(sink: &mut Sink, rel: &Path, mut reader: impl BufRead) {
    let mut names: Vec<String> = Vec::new();
    let mut saw_entry = false;
    let mut buffer = Vec::new();
    for number in 1.. {
        let line_number = to_u32(number);
        let line = match next_line(&mut reader, &mut buffer) {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(message) => return sink.diagnostic(rel, line_number, 1, message),
        };
        if line.starts_with("__metadata:") {
            // Berry's header entry, not a package.
            names.clear();
        } else if !line.starts_with([' ', '#']) && line.ends_with(':') {
            names = yarn_entry_names(line);
            saw_entry = true;
        } else if let Some(version) = yarn_version(line) {
            for name in names.drain(..) {
                sink.lock(Ecosystem::Npm, &name, at(version, rel, (line_number, 3)));
            }
        }
    }
    if saw_entry {
        lock_evidence(sink, rel, "yarn");
    }
}

/// Longest line read from a streamed lockfile; a longer one means the file is not one.
const MAX_LINE: usize = 64 << 10;

/// The next line without its line ending, read with bounded memory; `None` at the end.
fn next_line<'b>(
    reader: &mut impl BufRead,
    buffer: &'b mut Vec<u8>,
) -> Result<Option<&'b str>, String> {
    buffer.clear();
    let limit = u64::try_from(MAX_LINE).unwrap_or(u64::MAX);
    let read = reader
        .by_ref()
        .take(limit)
        .read_until(b'\n', buffer)
        .map_err(|err| format!("cannot read: {err}"))?;
    if read == 0 {
        return Ok(None);
    }
    if read == MAX_LINE && buffer.last() != Some(&b'\n') {
        return Err(format!("line longer than {MAX_LINE} bytes; not a lockfile"));
    }
    let line = std::str::from_utf8(buffer).map_err(|err| format!("not UTF-8: {err}"))?;
    Ok(Some(line.trim_end_matches(['\n', '\r'])))
}

/// The package names of an entry header such as `"@a/b@^1", "@a/b@npm:^1.2":`.
fn yarn_entry_names(header: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for spec in header.trim_end_matches(':').split(", ") {
        let spec = spec.trim().trim_matches('"');
        let Some(at_sign) = spec.get(1..).and_then(|s| s.find('@')) else {
            continue;
        };
        let name = &spec[..=at_sign];
        let range = &spec[at_sign + 2..];
        let local = range.starts_with("workspace:") || range.starts_with("link:");
        if !local && !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// The version of a `  version "1.2.3"` (classic) or `  version: 1.2.3` (berry) line.
fn yarn_version(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("  ")?.strip_prefix("version")?;
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let version = rest.trim().trim_matches('"');
    (!version.is_empty() && !rest.starts_with(char::is_alphanumeric)).then_some(version)
}

#[derive(Deserialize)]
struct BunLock {
    #[serde(default)]
    packages: Ordered<Vec<Value>>,
}

/// Reads a text `bun.lock` (JSON with trailing commas): each package's first element is
/// `name@version`.
pub(crate) fn read_bun_lock(sink: &mut Sink, rel: &Path, text: &str) {
    let json = without_trailing_commas(text);
    let lock: BunLock = match serde_json::from_str(&json) {
        Ok(lock) => lock,
        Err(err) => return json_error(sink, rel, &err),
    };
    lock_evidence(sink, rel, "bun");
    let index = LineIndex::new(text);
    let mut cursor = KeyCursor::new(&json);
    let mut indent = None;
    cursor.seek_key("packages");
    for (key, entry) in lock.packages.0 {
        let Some(spec) = entry.first().and_then(Value::as_str) else {
            continue;
        };
        let Some(at_sign) = spec.get(1..).and_then(|s| s.find('@')) else {
            continue;
        };
        let version = &spec[at_sign + 2..];
        let position = cursor
            .seek_entry(&key, &mut indent)
            .map_or((1, 1), |o| index.position(o));
        if !version.starts_with("workspace:") {
            sink.lock(
                Ecosystem::Npm,
                &spec[..=at_sign],
                at(version, rel, position),
            );
        }
    }
}

/// Blanks the commas that JSON forbids before `}` and `]`, keeping every offset in place so
/// that lines and columns still point into the original text.
fn without_trailing_commas(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            escaped = !escaped && b == b'\\';
            in_string = escaped || b != b'"';
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' => {
                let next = bytes[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                if matches!(next, Some(b'}' | b']')) {
                    out[i] = b' ';
                }
            }
            _ => {}
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pnpm_keys_of_every_lockfile_version() {
        assert_eq!(pnpm_package_key("/react@18.2.0"), Some(("react", "18.2.0")));
        assert_eq!(
            pnpm_package_key("@types/node@20.1.0"),
            Some(("@types/node", "20.1.0"))
        );
        assert_eq!(
            pnpm_package_key("/react-dom@18.2.0(react@18.2.0)"),
            Some(("react-dom", "18.2.0"))
        );
        assert_eq!(
            pnpm_package_key("/lodash/4.17.21"),
            Some(("lodash", "4.17.21"))
        );
    }

    #[test]
    fn yarn_headers_and_versions() {
        assert_eq!(
            yarn_entry_names(r#""@babel/core@^7.0.0", "@babel/core@npm:^7.1.0":"#),
            vec!["@babel/core"]
        );
        assert_eq!(yarn_entry_names("lodash@^4.17.0:"), vec!["lodash"]);
        assert!(yarn_entry_names(r#""app@workspace:.":"#).is_empty());
        assert_eq!(yarn_version(r#"  version "1.2.3""#), Some("1.2.3"));
        assert_eq!(yarn_version("  version: 1.2.3"), Some("1.2.3"));
        assert_eq!(yarn_version("  versions: 2"), None);
        assert_eq!(yarn_version("    version \"9\""), None);
    }

    #[test]
    fn yarn_lock_lines_are_bounded() {
        let mut sink = Sink::new(Path::new("/nonexistent"));
        let huge = format!("a@^1:\n  version \"{}\"\n", "9".repeat(MAX_LINE));
        read_yarn_lock(&mut sink, Path::new("yarn.lock"), huge.as_bytes());
        let project = sink.finish(Vec::new());
        assert!(project.dependencies.is_empty());
        assert_eq!(project.diagnostics.len(), 1);
        assert_eq!(project.diagnostics[0].line, 2);
    }

    #[test]
    fn trailing_commas_are_blanked_outside_strings() {
        let text = "{\"a\": [1, 2,],\n \"b,}\": 3,\n}";
        let json = without_trailing_commas(text);
        assert_eq!(json.len(), text.len());
        let value: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(value["b,}"], 3);
    }

    #[test]
    fn script_tools_match_whole_words() {
        assert!(mentions_command("npx vitest run", "vitest"));
        assert!(mentions_command("tsc && vite build", "vite"));
        assert!(!mentions_command("nextra build", "next"));
        assert!(mentions_command("node --test test/", "node --test"));
    }
}

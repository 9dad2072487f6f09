//! Python: `pyproject.toml` (PEP 621, PEP 735 groups, Poetry, uv), `requirements*.txt` with
//! `-r` includes, `setup.cfg`, `Pipfile`, `Pipfile.lock`, `poetry.lock` and `uv.lock`.

use std::path::{Component, Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::input::{json_error, read_bounded};
use super::locate::{KeyCursor, LineIndex, at, to_u32};
use super::ordered::Ordered;
use super::sink::Sink;
use super::toml_doc::{Doc, entries, for_each_locked_package, get, table_at};
use super::tools::Role;
use super::{DepKind, Ecosystem, RuntimeKind};

/// How deep `-r` includes may nest before the chain is assumed to be a cycle.
const MAX_INCLUDE_DEPTH: usize = 8;

/// Reads a `pyproject.toml`.
pub(crate) fn read_pyproject(sink: &mut Sink, rel: &Path, text: &str) {
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    read_pep621(sink, &doc);
    read_poetry(sink, &doc);
    read_uv(sink, &doc);
    if let Some(groups) = table_at(&doc.root, &["dependency-groups"]) {
        for (_, group) in entries(groups) {
            declare_requirements(sink, &doc, group, DepKind::Dev);
        }
    }
    if let Some(build) = table_at(&doc.root, &["build-system"]).and_then(|t| get(t, "requires")) {
        declare_requirements(sink, &doc, build, DepKind::Build);
    }
    if let Some(pytest) = get(&doc.root, "tool")
        .and_then(|t| t.get_ref().as_table())
        .and_then(|t| get(t, "pytest"))
    {
        sink.tool(
            Role::TestRunner,
            "pytest",
            doc.locate("[tool.pytest]", pytest.span()),
        );
    }
}

fn read_pep621(sink: &mut Sink, doc: &Doc<'_>) {
    let Some(project) = table_at(&doc.root, &["project"]) else {
        return;
    };
    // The package the repository is: its own skills are about it.
    if let Some(name) = get(project, "name").and_then(|v| v.get_ref().as_str()) {
        sink.own(Ecosystem::Pypi, name);
    }
    if let Some(range) = get(project, "requires-python").and_then(|v| doc.string(v)) {
        sink.runtime("python", RuntimeKind::Range, range);
    }
    if let Some(deps) = get(project, "dependencies") {
        declare_requirements(sink, doc, deps, DepKind::Normal);
    }
    if let Some(extras) = table_at(project, &["optional-dependencies"]) {
        for (_, deps) in entries(extras) {
            declare_requirements(sink, doc, deps, DepKind::Optional);
        }
    }
}

/// Declares each PEP 508 string of an array (other items, like group includes, are skipped).
fn declare_requirements(
    sink: &mut Sink,
    doc: &Doc<'_>,
    array: &Spanned<DeValue<'_>>,
    kind: DepKind,
) {
    let Some(items) = array.get_ref().as_array() else {
        return;
    };
    for item in items {
        let Some(requirement) = item.get_ref().as_str() else {
            continue;
        };
        let Some((name, constraint)) = pep508(requirement) else {
            continue;
        };
        let constraint = constraint.map(|c| doc.locate(c, item.span()));
        sink.declare(Ecosystem::Pypi, name, kind, constraint);
    }
}

fn read_poetry(sink: &mut Sink, doc: &Doc<'_>) {
    let Some(poetry) = table_at(&doc.root, &["tool", "poetry"]) else {
        return;
    };
    if let Some(name) = get(poetry, "name").and_then(|v| v.get_ref().as_str()) {
        sink.own(Ecosystem::Pypi, name);
    }
    if let Some(deps) = table_at(poetry, &["dependencies"]) {
        declare_poetry_table(sink, doc, deps, DepKind::Normal);
    }
    if let Some(deps) = table_at(poetry, &["dev-dependencies"]) {
        declare_poetry_table(sink, doc, deps, DepKind::Dev);
    }
    if let Some(groups) = table_at(poetry, &["group"]) {
        for (_, group) in entries(groups) {
            let deps = group
                .get_ref()
                .as_table()
                .and_then(|g| table_at(g, &["dependencies"]));
            if let Some(deps) = deps {
                declare_poetry_table(sink, doc, deps, DepKind::Dev);
            }
        }
    }
}

/// Poetry writes `name = "^1.2"` or `name = { version = "^1.2", optional = true }`;
/// `python` is the supported runtime range, not a package.
fn declare_poetry_table(sink: &mut Sink, doc: &Doc<'_>, table: &DeTable<'_>, kind: DepKind) {
    for (name, value) in entries(table) {
        let (version, optional) = match value.get_ref() {
            DeValue::String(_) => (doc.string(value), false),
            DeValue::Table(t) => (
                get(t, "version").and_then(|v| doc.string(v)),
                get(t, "optional").and_then(|v| v.get_ref().as_bool()) == Some(true),
            ),
            _ => (None, false),
        };
        if name == "python" {
            if let Some(range) = version {
                sink.runtime("python", RuntimeKind::Range, range);
            }
            continue;
        }
        let kind = if optional { DepKind::Optional } else { kind };
        sink.declare(Ecosystem::Pypi, name, kind, version);
    }
}

fn read_uv(sink: &mut Sink, doc: &Doc<'_>) {
    let Some(uv) = table_at(&doc.root, &["tool", "uv"]) else {
        return;
    };
    if let Some(deps) = get(uv, "dev-dependencies") {
        declare_requirements(sink, doc, deps, DepKind::Dev);
    }
}

/// Splits a PEP 508 requirement into its name and version specifier (`None` when it has
/// none, or names a URL instead). Extras and environment markers are dropped.
pub(crate) fn pep508(requirement: &str) -> Option<(&str, Option<&str>)> {
    let requirement = requirement.split(';').next()?.trim();
    let name_end = requirement
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(requirement.len());
    let name = &requirement[..name_end];
    if name.is_empty() {
        return None;
    }
    let mut rest = requirement[name_end..].trim_start();
    if rest.starts_with('[') {
        rest = rest.find(']').map_or("", |i| &rest[i + 1..]).trim_start();
    }
    if rest.starts_with('@') {
        return Some((name, None));
    }
    let spec = rest.trim_start_matches('(').trim_end_matches(')').trim();
    Some((name, (!spec.is_empty()).then_some(spec)))
}

/// Reads a requirements file and, through `-r`, the files it includes.
pub(crate) fn read_requirements(sink: &mut Sink, rel: &Path, text: &str) {
    read_requirements_at_depth(sink, rel, text, 0);
}

fn read_requirements_at_depth(sink: &mut Sink, rel: &Path, text: &str, depth: usize) {
    sink.tool(Role::PackageManager, "pip", at(file_name(rel), rel, (1, 1)));
    let kind = if is_dev_file(rel) {
        DepKind::Dev
    } else {
        DepKind::Normal
    };
    for (number, raw) in text.lines().enumerate() {
        let line = to_u32(number + 1);
        let content = raw.split(" #").next().unwrap_or(raw).trim();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        if let Some(include) = include_target(content) {
            include_requirements(sink, rel, include, line, depth);
            continue;
        }
        if content.starts_with('-') {
            continue;
        }
        if let Some((name, constraint)) = pep508(content) {
            let column = to_u32(raw.len() - raw.trim_start().len() + 1);
            let constraint = constraint.map(|c| at(c, rel, (line, column)));
            sink.declare(Ecosystem::Pypi, name, kind, constraint);
        }
    }
}

fn include_target(content: &str) -> Option<&str> {
    ["-r", "--requirement"].iter().find_map(|flag| {
        let rest = content.strip_prefix(flag)?;
        let rest = rest.strip_prefix('=').unwrap_or(rest);
        (rest.starts_with([' ', '\t']) || content.starts_with("--requirement="))
            .then(|| rest.trim())
            .filter(|r| !r.is_empty())
    })
}

fn include_requirements(sink: &mut Sink, from: &Path, target: &str, line: u32, depth: usize) {
    let joined = from.parent().unwrap_or(Path::new("")).join(target);
    let Some(rel) = normalise_inside_root(&joined) else {
        let message = format!("include {target} points outside the repository");
        return sink.diagnostic(from, line, 1, message);
    };
    if depth >= MAX_INCLUDE_DEPTH || !sink.first_read(&rel) {
        return;
    }
    let path = sink.root().join(&rel);
    // A symbolic link could lead out of the repository, which the scan never reads.
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        let message = format!("include {target} is a symbolic link; not followed");
        return sink.diagnostic(from, line, 1, message);
    }
    if let Some(text) = read_bounded(sink, &path, &rel, 4 << 20) {
        read_requirements_at_depth(sink, &rel, &text, depth + 1);
    }
}

/// Resolves `.` and `..` lexically; `None` when the path leaves the root or is absolute.
fn normalise_inside_root(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// Whether a requirements file is for development: a word of its path such as `dev` or
/// `test` (`requirements-dev.txt`, `requirements/test.txt`).
fn is_dev_file(rel: &Path) -> bool {
    let path = rel.to_string_lossy().to_ascii_lowercase();
    path.split(['-', '_', '.', '/', '\\']).any(|word| {
        matches!(
            word,
            "dev" | "develop" | "test" | "tests" | "lint" | "docs" | "ci"
        )
    })
}

fn file_name(rel: &Path) -> String {
    rel.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads a `setup.cfg`: `install_requires`, `extras_require`, `tests_require` and
/// `python_requires` from its `[options*]` sections.
pub(crate) fn read_setup_cfg(sink: &mut Sink, rel: &Path, text: &str) {
    let mut section = String::new();
    let mut key: Option<(String, DepKind)> = None;
    for (number, raw) in text.lines().enumerate() {
        let line = to_u32(number + 1);
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
            section = name.trim().to_string();
            key = None;
            continue;
        }
        let continued = raw.starts_with([' ', '\t']);
        let value = if continued {
            trimmed
        } else {
            let Some((k, v)) = trimmed.split_once(['=', ':']) else {
                continue;
            };
            key = setup_cfg_key(&section, k.trim());
            if k.trim() == "python_requires" && section == "options" {
                sink.runtime("python", RuntimeKind::Range, at(v.trim(), rel, (line, 1)));
            }
            v.trim()
        };
        if let (Some((_, kind)), Some((name, constraint))) = (&key, pep508(value)) {
            let constraint = constraint.map(|c| at(c, rel, (line, 1)));
            sink.declare(Ecosystem::Pypi, name, *kind, constraint);
        }
    }
}

fn setup_cfg_key(section: &str, key: &str) -> Option<(String, DepKind)> {
    let kind = match (section, key) {
        ("options", "install_requires") => DepKind::Normal,
        ("options", "tests_require") => DepKind::Dev,
        ("options", "setup_requires") => DepKind::Build,
        ("options.extras_require", _) => DepKind::Optional,
        _ => return None,
    };
    Some((key.to_string(), kind))
}

/// Reads a `Pipfile`: `[packages]`, `[dev-packages]` and `[requires]`.
pub(crate) fn read_pipfile(sink: &mut Sink, rel: &Path, text: &str) {
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    for (section, kind) in [
        ("packages", DepKind::Normal),
        ("dev-packages", DepKind::Dev),
    ] {
        let Some(table) = table_at(&doc.root, &[section]) else {
            continue;
        };
        for (name, value) in entries(table) {
            let version = match value.get_ref() {
                DeValue::Table(t) => get(t, "version").and_then(|v| doc.string(v)),
                _ => doc.string(value),
            };
            let version = version.filter(|v| v.value != "*");
            sink.declare(Ecosystem::Pypi, name, kind, version);
        }
    }
    let requires = table_at(&doc.root, &["requires"]);
    let python =
        requires.and_then(|r| get(r, "python_full_version").or_else(|| get(r, "python_version")));
    if let Some(python) = python.and_then(|v| doc.string(v)) {
        sink.runtime("python", RuntimeKind::Pin, python);
    }
}

#[derive(Deserialize)]
struct PipfileLock {
    #[serde(default)]
    default: Ordered<PipfileLocked>,
    #[serde(default)]
    develop: Ordered<PipfileLocked>,
}

#[derive(Deserialize)]
struct PipfileLocked {
    version: Option<String>,
}

/// Reads a `Pipfile.lock`: versions are written `==1.2.3`.
pub(crate) fn read_pipfile_lock(sink: &mut Sink, rel: &Path, text: &str) {
    let lock: PipfileLock = match serde_json::from_str(text) {
        Ok(lock) => lock,
        Err(err) => return json_error(sink, rel, &err),
    };
    sink.tool(
        Role::PackageManager,
        "pipenv",
        at(file_name(rel), rel, (1, 1)),
    );
    let index = LineIndex::new(text);
    for (section, packages) in [("default", lock.default), ("develop", lock.develop)] {
        let mut cursor = KeyCursor::new(text);
        let mut indent = None;
        cursor.seek_key(section);
        for (name, package) in packages.0 {
            let position = cursor
                .seek_entry(&name, &mut indent)
                .map_or((1, 1), |o| index.position(o));
            if let Some(version) = package.version {
                let version = version.trim_start_matches("==");
                sink.lock(Ecosystem::Pypi, &name, at(version, rel, position));
            }
        }
    }
}

/// Reads a `poetry.lock` or `uv.lock`: one `[[package]]` table per locked package.
pub(crate) fn read_package_lock_toml(sink: &mut Sink, rel: &Path, text: &str) {
    let Some(doc) = Doc::parse(sink, rel, text) else {
        return;
    };
    let manager = if file_name(rel) == "uv.lock" {
        "uv"
    } else {
        "poetry"
    };
    sink.tool(
        Role::PackageManager,
        manager,
        at(file_name(rel), rel, (1, 1)),
    );
    for_each_locked_package(&doc, |name, version, table| {
        if !is_local_package(table) {
            sink.lock(Ecosystem::Pypi, name, version);
        }
    });
}

/// uv records the project itself (and workspace members) with an `editable`, `virtual` or
/// `directory` source: they are not dependencies.
fn is_local_package(table: &DeTable<'_>) -> bool {
    let source = get(table, "source").and_then(|s| s.get_ref().as_table());
    source.is_some_and(|s| {
        ["editable", "virtual", "directory"]
            .iter()
            .any(|k| get(s, k).is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pep508_requirements() {
        assert_eq!(pep508("Django>=4.2,<5"), Some(("Django", Some(">=4.2,<5"))));
        assert_eq!(
            pep508("requests[socks] (>=2.0)"),
            Some(("requests", Some(">=2.0")))
        );
        assert_eq!(pep508("black; python_version>'3.8'"), Some(("black", None)));
        assert_eq!(pep508("pkg @ https://x/y.whl"), Some(("pkg", None)));
        assert_eq!(
            pep508("numpy ~= 1.26 ; sys_platform == 'linux'"),
            Some(("numpy", Some("~= 1.26")))
        );
        assert_eq!(pep508(">=1"), None);
    }

    #[test]
    fn includes_stay_inside_the_root() {
        assert_eq!(
            normalise_inside_root(Path::new("req/../base.txt")),
            Some(PathBuf::from("base.txt"))
        );
        assert_eq!(normalise_inside_root(Path::new("../x.txt")), None);
        assert_eq!(include_target("-r base.txt"), Some("base.txt"));
        assert_eq!(include_target("--requirement=base.txt"), Some("base.txt"));
        assert_eq!(include_target("-rbase.txt"), None);
    }
}

//! PHP: `composer.json` (`require`, `require-dev`, the `php` platform range) and
//! `composer.lock`.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::input::json_error;
use super::locate::{KeyCursor, LineIndex, at, key_position};
use super::sink::Sink;
use super::tools::Role;
use super::{DepKind, Ecosystem, RuntimeKind};

/// Reads a `composer.json`.
pub(crate) fn read_composer_json(sink: &mut Sink, rel: &Path, text: &str) {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(err) => return json_error(sink, rel, &err),
    };
    sink.tool(
        Role::PackageManager,
        "composer",
        at("composer.json", rel, (1, 1)),
    );
    let index = LineIndex::new(text);
    for (section, kind) in [("require", DepKind::Normal), ("require-dev", DepKind::Dev)] {
        let Some(entries) = value.get(section).and_then(Value::as_object) else {
            continue;
        };
        for (name, constraint) in entries {
            let Some(constraint) = constraint.as_str() else {
                continue;
            };
            let located = at(
                constraint,
                rel,
                key_position(text, &index, &[section], name),
            );
            if name == "php" {
                sink.runtime("php", RuntimeKind::Range, located);
            } else if !name.starts_with("ext-") && !name.starts_with("lib-") {
                sink.declare(Ecosystem::Composer, name, kind, Some(located));
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct ComposerLock {
    #[serde(default)]
    packages: Vec<LockedPackage>,
    #[serde(default)]
    packages_dev: Vec<LockedPackage>,
}

#[derive(Deserialize)]
struct LockedPackage {
    name: String,
    version: String,
}

/// Reads a `composer.lock`.
pub(crate) fn read_composer_lock(sink: &mut Sink, rel: &Path, text: &str) {
    let lock: ComposerLock = match serde_json::from_str(text) {
        Ok(lock) => lock,
        Err(err) => return json_error(sink, rel, &err),
    };
    let index = LineIndex::new(text);
    let mut cursor = KeyCursor::new(text);
    for package in lock.packages.into_iter().chain(lock.packages_dev) {
        // Each package object starts with its name; the cursor keeps document order.
        let position = cursor
            .seek(&format!("\"{}\"", package.name))
            .map_or((1, 1), |o| index.position(o));
        let version = package.version.trim_start_matches('v');
        sink.lock(
            Ecosystem::Composer,
            &package.name,
            at(version, rel, position),
        );
    }
}

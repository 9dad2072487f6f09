//! Ruby: `Gemfile.lock` (locked specs, the `DEPENDENCIES` constraints, `RUBY VERSION`),
//! Rails' `config/importmap.rb` (npm packages pinned without a `package.json`), and the
//! test helpers that say which test framework the project runs.

use std::path::Path;

use super::locate::{at, to_u32};
use super::sink::Sink;
use super::tools::Role;
use super::{DepKind, Ecosystem, RuntimeKind};

/// Reads a `Gemfile.lock`.
pub(crate) fn read_gemfile_lock(sink: &mut Sink, rel: &Path, text: &str) {
    sink.tool(
        Role::PackageManager,
        "bundler",
        at("Gemfile.lock", rel, (1, 1)),
    );
    let mut section = "";
    for (number, raw) in text.lines().enumerate() {
        let line = to_u32(number + 1);
        if !raw.starts_with(' ') {
            section = raw.trim();
            continue;
        }
        let indent = raw.len() - raw.trim_start().len();
        let entry = raw.trim();
        let column = to_u32(indent + 1);
        match (section, indent) {
            ("GEM", 4) => {
                if let Some((name, version)) = name_and_paren(entry) {
                    // Platform-specific specs (`1.15.4-x86_64-linux`) share the base version.
                    let version = version.split('-').next().unwrap_or(version);
                    sink.lock(Ecosystem::Rubygems, name, at(version, rel, (line, column)));
                }
            }
            ("DEPENDENCIES", 2) => {
                let (name, constraint) =
                    name_and_paren(entry).unwrap_or((entry.trim_end_matches('!'), ""));
                let constraint =
                    (!constraint.is_empty()).then(|| at(constraint, rel, (line, column)));
                sink.declare(
                    Ecosystem::Rubygems,
                    name.trim_end_matches('!'),
                    DepKind::Normal,
                    constraint,
                );
            }
            ("RUBY VERSION", _) => {
                let version = entry.trim_start_matches("ruby ");
                let version = version.split('p').next().unwrap_or(version);
                sink.runtime("ruby", RuntimeKind::Pin, at(version, rel, (line, column)));
            }
            _ => {}
        }
    }
}

/// Reads a `config/importmap.rb`: each `pin "name"` of an npm package is a dependency, at
/// the version importmap-rails writes in its trailing comment (`pin "x" # @3.2.2`).
/// Local pins (`pin "application"`, `pin_all_from "app/javascript/controllers"`) are the
/// application's own modules.
pub(crate) fn read_importmap(sink: &mut Sink, rel: &Path, text: &str) {
    for (number, raw) in text.lines().enumerate() {
        let line = to_u32(number + 1);
        let trimmed = raw.trim_start();
        let Some(rest) = trimmed.strip_prefix("pin ") else {
            continue;
        };
        let rest = rest.trim_start();
        let Some(quote) = rest.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            continue;
        };
        let Some((name, after)) = rest[1..].split_once(quote) else {
            continue;
        };
        if !pinned_package(name, after) {
            continue;
        }
        let column = to_u32(raw.len() - trimmed.len() + 1);
        sink.declare(Ecosystem::Npm, name, DepKind::Normal, None);
        let version = after
            .split_once("# @")
            .map(|(_, v)| v.split_whitespace().next().unwrap_or_default());
        if let Some(version) = version.filter(|v| !v.is_empty()) {
            sink.lock(Ecosystem::Npm, name, at(version, rel, (line, column)));
        }
    }
}

/// Whether a pin names a registry package: one fetched from a CDN or vendored with a version
/// comment, or a scoped name; not the application's own `application` or `controllers`.
fn pinned_package(name: &str, after: &str) -> bool {
    let from_registry = after.contains("# @")
        || after.contains("npm:")
        || after.contains("jspm.io")
        || after.contains("jsdelivr")
        || after.contains("unpkg");
    let local = ["application", "controllers", "channels"].contains(&name)
        || after.contains("preload: true") && !from_registry && !name.starts_with('@');
    !local && (from_registry || name.starts_with('@'))
}

/// Records the test framework a Ruby test helper stands for: `test/test_helper.rb` is
/// Minitest (Rails' default), `spec/*_helper.rb` and `.rspec` are RSpec.
pub(crate) fn read_test_helper(sink: &mut Sink, rel: &Path) {
    let runner = if rel.ends_with("test/test_helper.rb") {
        "minitest"
    } else {
        "rspec"
    };
    let name = rel.to_string_lossy().replace('\\', "/");
    sink.tool(Role::TestRunner, runner, at(name, rel, (1, 1)));
}

/// `rails (7.1.3)` -> (`rails`, `7.1.3`); `pg (~> 1.1, >= 1.1.4)` keeps the whole list.
fn name_and_paren(entry: &str) -> Option<(&str, &str)> {
    let (name, rest) = entry.split_once(" (")?;
    Some((name.trim_end_matches('!'), rest.strip_suffix(')')?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_lines() {
        assert_eq!(name_and_paren("rails (7.1.3)"), Some(("rails", "7.1.3")));
        assert_eq!(
            name_and_paren("pg (~> 1.1, >= 1.1.4)"),
            Some(("pg", "~> 1.1, >= 1.1.4"))
        );
        assert_eq!(name_and_paren("bootsnap"), None);
    }

    #[test]
    fn importmap_pins_of_packages_are_dependencies() {
        let text = "pin \"application\"\npin \"@hotwired/turbo-rails\", to: \"turbo.min.js\"\npin \"@hotwired/stimulus\", to: \"stimulus.min.js\" # @3.2.2\npin \"lodash\", to: \"https://ga.jspm.io/npm:lodash@4.17.21/lodash.js\"\npin_all_from \"app/javascript/controllers\", under: \"controllers\"\n";
        let mut sink = Sink::new(Path::new("/repo"));
        read_importmap(&mut sink, Path::new("config/importmap.rb"), text);
        let project = sink.finish(Vec::new());
        let mut names: Vec<(&str, Option<&str>)> = project
            .dependencies
            .iter()
            .map(|d| {
                (
                    d.name.as_str(),
                    d.resolved.as_ref().map(|v| v.value.as_str()),
                )
            })
            .collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                ("@hotwired/stimulus", Some("3.2.2")),
                ("@hotwired/turbo-rails", None),
                ("lodash", None),
            ]
        );
    }
}

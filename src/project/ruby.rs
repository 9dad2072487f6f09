//! Ruby: `Gemfile.lock` (locked specs, the `DEPENDENCIES` constraints, `RUBY VERSION`).

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
}

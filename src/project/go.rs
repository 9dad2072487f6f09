//! Go: `go.mod` (`go` and `toolchain` directives, `require` blocks, `replace`).
//!
//! Go has no separate lockfile: with minimal version selection the versions `go.mod`
//! requires are the versions the build uses, so each requirement is both the declared
//! constraint and the resolved version, unless a `replace` directive substitutes another.

use std::collections::HashMap;
use std::path::Path;

use super::locate::{at, to_u32};
use super::sink::Sink;
use super::tools::Role;
use super::{DepKind, Ecosystem, Located, RuntimeKind};

/// Which block a line of `go.mod` is inside.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Block {
    None,
    Require,
    Replace,
    Other,
}

impl Block {
    /// The directive a line stands for and its arguments; `None` inside blocks not read.
    fn directive(self, content: &str) -> Option<(&str, &str)> {
        let (directive, args) = match self {
            Block::None => content
                .split_once(char::is_whitespace)
                .unwrap_or((content, "")),
            Block::Require => ("require", content),
            Block::Replace => ("replace", content),
            Block::Other => return None,
        };
        Some((directive, args.trim()))
    }

    /// The block a `directive (` line opens.
    fn opened_by(directive: &str) -> Self {
        match directive {
            "require" => Block::Require,
            "replace" => Block::Replace,
            _ => Block::Other,
        }
    }
}

/// Requirements by module, and replacements, applied once the whole file is read: a
/// `replace` may come before or after the requirement it changes.
#[derive(Default)]
struct Modules {
    required: HashMap<String, usize>,
    replaced: Vec<(String, Located<String>)>,
}

/// Reads a `go.mod`.
pub(crate) fn read_go_mod(sink: &mut Sink, rel: &Path, text: &str) {
    let mut block = Block::None;
    let mut modules = Modules::default();
    for (number, raw) in text.lines().enumerate() {
        let content = raw.split("//").next().unwrap_or(raw).trim();
        if content.is_empty() {
            continue;
        }
        if content == ")" {
            block = Block::None;
            continue;
        }
        let Some((directive, args)) = block.directive(content) else {
            continue;
        };
        if args == "(" {
            block = Block::opened_by(directive);
            continue;
        }
        let position = (
            to_u32(number + 1),
            to_u32(raw.len() - raw.trim_start().len() + 1),
        );
        let line = Line {
            directive,
            args,
            indirect: raw.contains("// indirect"),
            position,
        };
        read_directive(sink, rel, &mut modules, &line);
    }
    for (module, version) in modules.replaced {
        if let Some(&index) = modules.required.get(&module) {
            sink.set_resolved(index, version);
        }
    }
}

/// One directive line of `go.mod`.
struct Line<'t> {
    directive: &'t str,
    args: &'t str,
    indirect: bool,
    position: (u32, u32),
}

fn read_directive(sink: &mut Sink, rel: &Path, modules: &mut Modules, line: &Line<'_>) {
    let Line { args, position, .. } = *line;
    match line.directive {
        "go" => sink.runtime("go", RuntimeKind::Range, at(args, rel, position)),
        "toolchain" => {
            let version = args.trim_start_matches("go");
            sink.runtime("go", RuntimeKind::Pin, at(version, rel, position));
        }
        "require" => {
            if let Some((module, index)) = require(sink, rel, args, line.indirect, position) {
                modules.required.insert(module, index);
            }
        }
        "replace" => {
            if let Some((module, version)) = replacement(args) {
                modules.replaced.push((module, at(version, rel, position)));
            }
        }
        "module" => {
            if let Some(path) = args.split_whitespace().next() {
                sink.own(Ecosystem::Go, path.trim_matches('"'));
            }
            let evidence = at("go.mod", rel, position);
            sink.tool(Role::PackageManager, "go", evidence.clone());
            sink.tool(Role::TestRunner, "go test", evidence.clone());
            sink.tool(Role::BuildTool, "go", evidence);
        }
        _ => {}
    }
}

fn require(
    sink: &mut Sink,
    rel: &Path,
    args: &str,
    indirect: bool,
    position: (u32, u32),
) -> Option<(String, usize)> {
    let mut words = args.split_whitespace();
    let (module, version) = (words.next()?, words.next()?);
    let kind = if indirect {
        DepKind::Indirect
    } else {
        DepKind::Normal
    };
    let index = sink.declare(
        Ecosystem::Go,
        module,
        kind,
        Some(at(version, rel, position)),
    );
    sink.set_resolved(index, at(version, rel, position));
    Some((module.to_string(), index))
}

/// `old [v] => new v` replaces a module with another version: the new version is the one
/// built. A replacement by a local directory has no version and is ignored here.
fn replacement(args: &str) -> Option<(String, String)> {
    let (old, new) = args.split_once("=>")?;
    let module = old.split_whitespace().next()?;
    let mut new = new.split_whitespace();
    let (_, version) = (new.next()?, new.next()?);
    Some((module.to_string(), version.to_string()))
}

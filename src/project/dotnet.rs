//! .NET: `*.csproj`/`*.fsproj` and `Directory.Packages.props` (`PackageReference`,
//! `PackageVersion`, `TargetFramework`) and `global.json` (the SDK version).

use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};
use serde_json::Value;

use super::input::json_error;
use super::locate::{LineIndex, at, key_position};
use super::sink::Sink;
use super::tools::Role;
use super::{DepKind, Ecosystem, RuntimeKind};

/// Reads an MSBuild project file.
pub(crate) fn read_project_file(sink: &mut Sink, rel: &Path, text: &str) {
    let index = LineIndex::new(text);
    let mut reader = Reader::from_str(text);
    let mut element = String::new();
    let mut start = 0usize;
    let mut open_reference: Option<(String, DepKind)> = None;
    sink.tool(Role::BuildTool, "dotnet", at(file_name(rel), rel, (1, 1)));
    loop {
        let before = usize::try_from(reader.buffer_position()).unwrap_or(0);
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(err) => {
                let offset = usize::try_from(reader.error_position()).unwrap_or(0);
                let (line, column) = index.position(offset);
                return sink.diagnostic(rel, line, column, format!("invalid XML: {err}"));
            }
        };
        let position = index.position(before + leading_space(text, before));
        match event {
            Event::Empty(tag) => {
                reference(sink, rel, &tag, position, false);
            }
            Event::Start(tag) => {
                element = tag.local_name().as_ref().to_string();
                start = usize::try_from(reader.buffer_position()).unwrap_or(0);
                if let Some(opened) = reference(sink, rel, &tag, position, true) {
                    open_reference = Some(opened);
                }
            }
            Event::Text(content) => {
                let value = content.into_inner();
                let value = value.trim();
                let at_text = index.position(start);
                text_value(sink, rel, &element, value, at_text, &mut open_reference);
            }
            Event::End(tag) => {
                if matches!(
                    tag.local_name().as_ref(),
                    "PackageReference" | "PackageVersion"
                ) && let Some((name, kind)) = open_reference.take()
                {
                    sink.declare(Ecosystem::Nuget, &name, kind, None);
                }
                element.clear();
            }
            Event::Eof => return,
            _ => {}
        }
    }
}

/// A `PackageReference`/`PackageVersion` tag. Self-closing ones are declared at once; an
/// opened one without a `Version` attribute is returned, to take a `<Version>` child.
fn reference(
    sink: &mut Sink,
    rel: &Path,
    tag: &BytesStart<'_>,
    position: (u32, u32),
    opened: bool,
) -> Option<(String, DepKind)> {
    let kind = match tag.local_name().as_ref() {
        "PackageReference" => DepKind::Normal,
        "PackageVersion" => DepKind::Managed,
        _ => return None,
    };
    let name = attribute(tag, "Include").or_else(|| attribute(tag, "Update"))?;
    let version = attribute(tag, "Version").or_else(|| attribute(tag, "VersionOverride"));
    match (version, opened) {
        (None, true) => Some((name, kind)),
        (version, _) => {
            let constraint = version.map(|v| at(v, rel, position));
            sink.declare(Ecosystem::Nuget, &name, kind, constraint);
            None
        }
    }
}

fn text_value(
    sink: &mut Sink,
    rel: &Path,
    element: &str,
    value: &str,
    position: (u32, u32),
    open_reference: &mut Option<(String, DepKind)>,
) {
    match element {
        "Version" => {
            if let Some((name, kind)) = open_reference.take() {
                sink.declare(
                    Ecosystem::Nuget,
                    &name,
                    kind,
                    Some(at(value, rel, position)),
                );
            }
        }
        "TargetFramework" | "TargetFrameworks" => {
            for framework in value.split(';').filter(|f| !f.is_empty()) {
                sink.runtime("dotnet", RuntimeKind::Pin, at(framework, rel, position));
            }
        }
        _ => {}
    }
}

fn attribute(tag: &BytesStart<'_>, name: &str) -> Option<String> {
    let attr = tag.try_get_attribute(name).ok()??;
    Some(attr.value.trim().to_string())
}

fn leading_space(text: &str, offset: usize) -> usize {
    text.get(offset..)
        .map_or(0, |rest| rest.len() - rest.trim_start().len())
}

fn file_name(rel: &Path) -> String {
    rel.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Reads a `global.json`: `sdk.version` pins the .NET SDK.
pub(crate) fn read_global_json(sink: &mut Sink, rel: &Path, text: &str) {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(err) => return json_error(sink, rel, &err),
    };
    let Some(version) = value.pointer("/sdk/version").and_then(Value::as_str) else {
        return;
    };
    let index = LineIndex::new(text);
    let position = key_position(text, &index, &["sdk"], "version");
    sink.runtime("dotnet", RuntimeKind::Pin, at(version, rel, position));
}

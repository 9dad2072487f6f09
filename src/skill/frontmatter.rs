//! The YAML frontmatter between the `---` lines: split, parsed with bounded alias expansion,
//! and typed, keeping unknown keys for the rules.

use std::ops::Range;
use std::path::Path;

use serde_norway::{Mapping, Value};

use super::error::LoadError;
use super::source::SourceFile;
use crate::snippet::Snippet;

/// The keys the Agent Skills specification defines.
pub const SPEC_KEYS: &[&str] = &[
    "name",
    "description",
    "license",
    "allowed-tools",
    "metadata",
    "compatibility",
];

/// A top-level frontmatter key with its value and the span of its line.
#[derive(Debug, Clone)]
pub struct Field<T> {
    /// The key as written.
    pub key: String,
    /// The value.
    pub value: T,
    /// Byte range of the key's line in the file.
    pub span: Range<usize>,
}

/// A value of an unexpected YAML type (e.g. `name: [a, b]`).
#[derive(Debug, Clone)]
pub struct TypeMismatch {
    /// The key.
    pub key: String,
    /// What the specification expects.
    pub expected: &'static str,
    /// Byte range of the key's line.
    pub span: Range<usize>,
}

/// The typed frontmatter.
#[derive(Debug, Clone, Default)]
pub struct Frontmatter {
    /// Byte range of the whole block, `---` lines included.
    pub range: Range<usize>,
    /// `name`.
    pub name: Option<Field<String>>,
    /// `description`.
    pub description: Option<Field<String>>,
    /// `license`.
    pub license: Option<Field<String>>,
    /// `allowed-tools`, as a space-separated string or a list.
    pub allowed_tools: Option<Field<Vec<String>>>,
    /// `metadata`, a free mapping.
    pub metadata: Option<Field<Mapping>>,
    /// `compatibility`.
    pub compatibility: Option<Field<String>>,
    /// Keys outside the specification, kept for the rules.
    pub extra: Vec<Field<Value>>,
    /// Spec keys whose value has the wrong type.
    pub mismatches: Vec<TypeMismatch>,
}

/// Split `file` into frontmatter and the byte offset where the body starts, and type it.
pub fn parse(file: &SourceFile) -> Result<(Frontmatter, usize), LoadError> {
    let text = &file.text;
    let bom = if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    };
    let mut lines = LineIter { text, pos: bom };
    let missing = || LoadError::MissingFrontmatter {
        path: file.path.clone(),
    };
    let first = lines.next().ok_or_else(missing)?;
    if text[first.clone()].trim_end() != "---" {
        return Err(missing());
    }
    let yaml_start = lines.pos;
    let close = lines
        .find(|l| matches!(text[l.clone()].trim_end(), "---" | "..."))
        .ok_or_else(|| LoadError::UnclosedFrontmatter {
            path: file.path.clone(),
        })?;
    let yaml = &text[yaml_start..close.start];
    let body_start = lines.pos;

    let value = parse_yaml(file, yaml, yaml_start)?;
    let mapping = match value {
        Value::Mapping(m) => m,
        Value::Null => Mapping::new(),
        _ => {
            let (line, column) = file.line_column(yaml_start);
            return Err(LoadError::InvalidYaml {
                path: file.path.clone(),
                line,
                column,
                message: "the frontmatter must be a mapping of keys to values".into(),
                snippet: yaml_snippet(file, yaml_start..close.start, "not a mapping"),
            });
        }
    };
    let mut fm = Frontmatter {
        range: bom..body_start,
        ..Frontmatter::default()
    };
    let key_lines = top_level_key_lines(text, yaml_start..close.start);
    for (key, value) in mapping {
        let key = match key {
            Value::String(s) => s,
            other => yaml_scalar_text(&other),
        };
        let span = key_lines
            .iter()
            .find(|(k, _)| *k == key)
            .map_or(first.clone(), |(_, span)| span.clone());
        fm.insert(key, value, span);
    }
    Ok((fm, body_start))
}

/// The key with which a skill asks to be invoked only by the user, by name (Claude Code,
/// Cursor): the model never picks it from its description.
pub const DISABLE_MODEL_INVOCATION: &str = "disable-model-invocation";

impl Frontmatter {
    /// Whether the frontmatter sets `disable-model-invocation: true`.
    pub fn disables_model_invocation(&self) -> bool {
        self.extra
            .iter()
            .any(|f| f.key == DISABLE_MODEL_INVOCATION && matches!(f.value, Value::Bool(true)))
    }

    fn insert(&mut self, key: String, value: Value, span: Range<usize>) {
        let mismatch = |fm: &mut Self, key: String, expected| {
            fm.mismatches.push(TypeMismatch {
                key,
                expected,
                span: span.clone(),
            });
        };
        match key.as_str() {
            "name" | "description" | "license" | "compatibility" => {
                let Some(s) = scalar_string(&value) else {
                    return mismatch(self, key, "a string");
                };
                let field = Some(Field {
                    key: key.clone(),
                    value: s,
                    span: span.clone(),
                });
                match key.as_str() {
                    "name" => self.name = field,
                    "description" => self.description = field,
                    "license" => self.license = field,
                    _ => self.compatibility = field,
                }
            }
            "allowed-tools" => {
                let tools = match &value {
                    Value::String(s) => Some(s.split_whitespace().map(str::to_owned).collect()),
                    Value::Sequence(items) => items.iter().map(scalar_string).collect(),
                    _ => None,
                };
                match tools {
                    Some(value) => self.allowed_tools = Some(Field { key, value, span }),
                    None => mismatch(self, key, "a space-separated string or a list of strings"),
                }
            }
            "metadata" => match value {
                Value::Mapping(value) => self.metadata = Some(Field { key, value, span }),
                _ => mismatch(self, key, "a mapping"),
            },
            _ => self.extra.push(Field { key, value, span }),
        }
    }
}

/// Parse YAML, mapping the parser's error position into the file.
fn parse_yaml(file: &SourceFile, yaml: &str, offset: usize) -> Result<Value, LoadError> {
    serde_norway::from_str::<Value>(yaml).map_err(|e| {
        let at = e
            .location()
            .map_or(offset, |loc| offset + loc.index().min(yaml.len()));
        let (line, column) = file.line_column(at);
        LoadError::InvalidYaml {
            path: file.path.clone(),
            line,
            column,
            message: strip_position(&e.to_string()),
            snippet: yaml_snippet(file, at..at + 1, "here"),
        }
    })
}

/// The frontmatter's error span in the file, to show under the error.
fn yaml_snippet(file: &SourceFile, span: Range<usize>, label: &'static str) -> Box<Snippet> {
    Box::new(Snippet::new(
        &file.path.display().to_string(),
        &file.text,
        span,
        label,
    ))
}

/// The YAML library appends "at line X column Y" relative to the frontmatter; we report
/// file positions instead.
fn strip_position(message: &str) -> String {
    match message.find(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

fn scalar_string(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(_) | Value::Bool(_) => Some(yaml_scalar_text(value)),
        _ => None,
    }
}

fn yaml_scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        _ => String::from("<complex key>"),
    }
}

/// Lines that start a top-level key (`key:` at column 0), with the key text.
fn top_level_key_lines(text: &str, range: Range<usize>) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    for line in (LineIter {
        text,
        pos: range.start,
    }) {
        if line.start >= range.end {
            break;
        }
        let s = &text[line.clone()];
        if s.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        if let Some(colon) = s.find(':') {
            let key = s[..colon].trim().trim_matches(['"', '\'']);
            if !key.is_empty() {
                out.push((key.to_owned(), line));
            }
        }
    }
    out
}

/// Lines of `text` from `pos`, as byte ranges without terminators.
struct LineIter<'a> {
    text: &'a str,
    pos: usize,
}

impl Iterator for LineIter<'_> {
    type Item = Range<usize>;

    fn next(&mut self) -> Option<Range<usize>> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let end = self.text[start..]
            .find('\n')
            .map_or(self.text.len(), |i| start + i);
        self.pos = (end + 1).min(self.text.len()).max(end);
        if end == self.text.len() {
            self.pos = self.text.len();
        }
        let trimmed = if self.text[start..end].ends_with('\r') {
            end - 1
        } else {
            end
        };
        Some(start..trimmed)
    }
}

/// Whether a file name is spelled like a skill manifest in any case (`SKILL.md`, `skill.md`).
pub fn is_manifest_name(name: &Path) -> bool {
    name.to_str()
        .is_some_and(|n| n.eq_ignore_ascii_case("skill.md"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile::new("SKILL.md".into(), text.into())
    }

    #[test]
    fn typed_fields_and_unknown_keys() {
        let f = file(
            "---\nname: demo\ndescription: Does x. Use when y.\nallowed-tools: Read Bash\nversion: 2\n---\n# Body\n",
        );
        let (fm, body) = parse(&f).expect("valid");
        assert_eq!(fm.name.as_ref().map(|n| n.value.as_str()), Some("demo"));
        assert_eq!(
            fm.allowed_tools.map(|t| t.value),
            Some(vec!["Read".into(), "Bash".into()])
        );
        assert_eq!(fm.extra[0].key, "version");
        assert_eq!(f.line_column(fm.extra[0].span.start), (5, 1));
        assert_eq!(&f.text[body..], "# Body\n");
    }

    #[test]
    fn yaml_errors_point_into_the_file() {
        let f = file("---\nname: demo\ndescription: [unclosed\n---\n");
        match parse(&f) {
            Err(LoadError::InvalidYaml { line, .. }) => assert!(line >= 3, "line {line}"),
            other => panic!("expected invalid YAML, got {other:?}"),
        }
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..12 {
            let p = i - 1;
            yaml.push_str(&format!("a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"));
        }
        yaml.push_str("---\n");
        assert!(matches!(
            parse(&file(&yaml)),
            Err(LoadError::InvalidYaml { .. })
        ));
    }

    #[test]
    fn missing_and_unclosed() {
        assert!(matches!(
            parse(&file("# no\n")),
            Err(LoadError::MissingFrontmatter { .. })
        ));
        assert!(matches!(
            parse(&file("---\nname: x\n")),
            Err(LoadError::UnclosedFrontmatter { .. })
        ));
    }
}

//! What every manifest reader shares: a bounded file read, and JSON and YAML syntax
//! errors reported as scan diagnostics with the parser's line and column.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use super::locate::to_u32;
use super::sink::Sink;

/// Reports a JSON syntax error with the parser's line and column.
pub(crate) fn json_error(sink: &mut Sink, rel: &Path, err: &serde_json::Error) {
    let line = to_u32(err.line().max(1));
    let column = to_u32(err.column().max(1));
    sink.diagnostic(rel, line, column, format!("invalid JSON: {err}"));
}

/// Reports a YAML syntax error with the parser's line and column.
pub(crate) fn yaml_error(sink: &mut Sink, rel: &Path, err: &serde_norway::Error) {
    let (line, column) = err
        .location()
        .map_or((1, 1), |l| (to_u32(l.line()), to_u32(l.column())));
    sink.diagnostic(
        rel,
        line.max(1),
        column.max(1),
        format!("invalid YAML: {err}"),
    );
}

/// Reads a file of at most `limit` bytes as UTF-8; anything else becomes a diagnostic.
/// The buffer is sized from the file's length up front: a doubling `String` would hold
/// twice a large lockfile at the moment it grows.
pub(crate) fn read_bounded(sink: &mut Sink, path: &Path, rel: &Path, limit: u64) -> Option<String> {
    match read_limited(path, limit) {
        Ok(Some(text)) => Some(text),
        Ok(None) => {
            sink.diagnostic(rel, 1, 1, format!("skipped: larger than {limit} bytes"));
            None
        }
        Err(err) => {
            sink.diagnostic(rel, 1, 1, format!("cannot read: {err}"));
            None
        }
    }
}

/// The file's text, or `None` when it is larger than `limit` (checked before reading, and
/// again while reading in case it grows).
fn read_limited(path: &Path, limit: u64) -> std::io::Result<Option<String>> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    if len > limit {
        return Ok(None);
    }
    let mut text = String::new();
    text.try_reserve_exact(usize::try_from(len).unwrap_or(0).saturating_add(1))
        .map_err(std::io::Error::other)?;
    let read = file.take(limit + 1).read_to_string(&mut text)?;
    Ok((u64::try_from(read).unwrap_or(u64::MAX) <= limit).then_some(text))
}

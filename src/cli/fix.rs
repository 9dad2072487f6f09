//! `check --fix` and `check --diff`: the findings' edits applied to the files they name,
//! written in place or shown as a unified diff.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use super::error::Error;
use crate::finding::Finding;
use crate::lint::fix;

/// One file's fixed text and what changed in it.
pub(super) struct FixedFile {
    /// The file, as the findings name it.
    pub path: PathBuf,
    /// Its text before.
    pub before: String,
    /// Its text after.
    pub after: String,
    /// One line per fix applied (`SG505 close the code fence`).
    pub applied: Vec<String>,
    /// One line per fix left out because it overlapped another.
    pub skipped: Vec<String>,
    /// One line per fix refused because it would damage the file, with the reason.
    pub refused: Vec<String>,
}

/// Apply the fixes of `findings` (safe ones, and the others with `unsafe_fixes`) to the
/// texts of the files they edit; nothing is written.
pub(super) fn plan<'a>(
    findings: impl Iterator<Item = &'a Finding>,
    unsafe_fixes: bool,
) -> Result<Vec<FixedFile>, Error> {
    let mut by_file: BTreeMap<PathBuf, Vec<(&Finding, usize)>> = BTreeMap::new();
    for f in findings {
        let Some(fx) = f.fix.as_ref().filter(|fx| fx.safe || unsafe_fixes) else {
            continue;
        };
        for (i, edit) in fx.edits.iter().enumerate() {
            by_file
                .entry(edit.location.path.clone())
                .or_default()
                .push((f, i));
        }
    }
    let mut out = Vec::new();
    for (path, edits) in by_file {
        let before = fs::read_to_string(&path).map_err(|source| Error::Fix {
            path: path.clone(),
            action: "read",
            source,
        })?;
        fn span_of<'f>((f, i): &(&'f Finding, usize)) -> (std::ops::Range<usize>, &'f str) {
            let edit = f.fix.as_ref().map(|fx| &fx.edits[*i]);
            edit.map_or((0..0, ""), |e| (e.location.span.clone(), e.text.as_str()))
        }
        let label = |f: &Finding| {
            let description = f.fix.as_ref().map_or("", |fx| fx.description.as_str());
            format!("{} {description} (line {})", f.code, f.location.line)
        };
        // Each finding's fix joins the others only when the file re-read with it keeps its
        // structure (see `fix::damage`); a fix that would damage it is refused.
        let mut kept: Vec<usize> = Vec::new();
        let mut refused: Vec<String> = Vec::new();
        let mut k = 0;
        while k < edits.len() {
            let finding = edits[k].0;
            let mut end = k;
            while end < edits.len() && std::ptr::eq(edits[end].0, finding) {
                end += 1;
            }
            let trial: Vec<usize> = kept.iter().copied().chain(k..end).collect();
            let spans: Vec<_> = trial.iter().map(|&j| span_of(&edits[j])).collect();
            let (after, _) = fix::apply(&before, &spans);
            match fix::damage(&before, &after, finding.code == "SG505") {
                None => kept = trial,
                Some(why) => {
                    let line = format!("{}: {why}", label(finding));
                    if !refused.contains(&line) {
                        refused.push(line);
                    }
                }
            }
            k = end;
        }
        let edits: Vec<(&Finding, usize)> = kept.iter().map(|&j| edits[j]).collect();
        let spans: Vec<_> = edits.iter().map(span_of).collect();
        let (after, skipped_edits) = fix::apply(&before, &spans);
        let mut applied: Vec<String> = Vec::new();
        let mut skipped: Vec<String> = Vec::new();
        for (k, (f, _)) in edits.iter().enumerate() {
            let line = label(f);
            let list = if skipped_edits.contains(&k) {
                &mut skipped
            } else {
                &mut applied
            };
            if !list.contains(&line) {
                list.push(line);
            }
        }
        out.push(FixedFile {
            path,
            before,
            after,
            applied,
            skipped,
            refused,
        });
    }
    Ok(out)
}

/// The unified diff of every planned file, paths as the findings name them.
pub(super) fn diff(files: &[FixedFile]) -> String {
    files
        .iter()
        .map(|f| {
            let path = f.path.to_string_lossy().replace('\\', "/");
            fix::unified_diff(path.trim_start_matches("./"), &f.before, &f.after)
        })
        .collect()
}

/// Write every planned file and say on stderr what changed.
pub(super) fn write(files: &[FixedFile]) -> Result<(), Error> {
    for f in files.iter().filter(|f| f.before != f.after) {
        fs::write(&f.path, &f.after).map_err(|source| Error::Fix {
            path: f.path.clone(),
            action: "write",
            source,
        })?;
        for line in &f.applied {
            eprintln!("fixed {}: {line}", f.path.display());
        }
    }
    for f in files {
        for line in &f.refused {
            eprintln!("not fixed {}: {line}", f.path.display());
        }
        for line in &f.skipped {
            eprintln!(
                "not fixed {}: {line}: it overlaps another fix; run again",
                f.path.display()
            );
        }
    }
    Ok(())
}

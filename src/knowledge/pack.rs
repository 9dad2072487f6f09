//! Knowledge packs: folders laid out like `rules/` (an optional `packages.toml` and
//! `apis/<ecosystem>/<package>.toml` files) that a user or a marketplace ships and
//! `skillgate.toml` adds to the embedded knowledge with `knowledge = ["DIR"]`.

use std::fmt;
use std::path::{Path, PathBuf};

use super::{
    ALIASES, API_FILES, Checks, Fires, KNOWLEDGE, Knowledge, PACKAGES_FILE, Violation, built_in,
    validate,
};
use crate::snippet::Snippet;

/// A pack read from disk: its files' texts and what they parse to.
#[derive(Debug, Clone)]
pub struct Pack {
    /// The folder given.
    pub root: PathBuf,
    /// The parsed aliases and API files; paths are relative to `root`.
    pub knowledge: Knowledge,
    /// `(path under root, text)` of every file read, for line numbers in problems.
    texts: Vec<(String, String)>,
}

/// A pack that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PackError {
    /// A folder or file cannot be read.
    #[error("{}: cannot read the knowledge pack: {source}", path.display())]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The folder holds neither `packages.toml` nor `apis/<ecosystem>/*.toml`.
    #[error(
        "{}: not a knowledge pack: expected packages.toml or apis/<ecosystem>/<package>.toml",
        path.display()
    )]
    Empty {
        /// The folder.
        path: PathBuf,
    },
    /// A file is not valid TOML or not an alias table or API file.
    #[error("{}:{line}: {}", path.display(), source.message().trim())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// What the parser said.
        source: Box<toml::de::Error>,
        /// The file and the span the parser pointed at.
        snippet: Box<Snippet>,
    },
    /// The pack parses but its entries do not validate.
    #[error(
        "{}: {} problem(s) in the knowledge pack, the first: {}; run `skillgate knowledge check {}` for all",
        root.display(),
        problems.len(),
        problems.first().map(ToString::to_string).unwrap_or_default(),
        root.display()
    )]
    Problems {
        /// The pack's folder.
        root: PathBuf,
        /// Every problem found.
        problems: Vec<PackProblem>,
    },
    /// Packs were added after the knowledge was first read.
    #[error("knowledge packs must be added before the knowledge is first used")]
    InUse,
}

impl miette::Diagnostic for PackError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let code = match self {
            Self::Io { .. } => "io",
            Self::Empty { .. } => "empty",
            Self::Invalid { .. } => "invalid",
            Self::Problems { .. } => "problems",
            Self::InUse => "in-use",
        };
        Some(Box::new(format!("skillgate::knowledge::{code}")))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        let help = match self {
            Self::Empty { .. } | Self::Invalid { .. } => {
                "docs/knowledge.md describes the files of a knowledge pack"
            }
            _ => return None,
        };
        Some(Box::new(help))
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        match self {
            Self::Invalid { snippet, .. } => Some(snippet.source_code()),
            _ => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        match self {
            Self::Invalid { snippet, .. } => Some(snippet.labels()),
            _ => None,
        }
    }
}

/// One problem in a pack, with the file and line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackProblem {
    /// The file, under the pack's folder.
    pub file: PathBuf,
    /// 1-based line of the entry, when it can be found.
    pub line: Option<usize>,
    /// The entry and what is wrong.
    pub violation: Violation,
}

impl fmt::Display for PackProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": [{}] {}", self.violation.entry, self.violation.problem)
    }
}

/// Reads and parses the pack in `dir`; every file must parse.
pub fn load_pack(dir: &Path) -> Result<Pack, PackError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| PackError::Io { path, source }
    };
    let mut paths = Vec::new();
    if dir.join(PACKAGES_FILE).is_file() {
        paths.push(PACKAGES_FILE.to_owned());
    }
    let apis = dir.join("apis");
    if !dir.is_dir() {
        return Err(PackError::Io {
            path: dir.to_owned(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such folder"),
        });
    }
    if apis.is_dir() {
        let mut found = Vec::new();
        let mut pending = vec![apis];
        while let Some(current) = pending.pop() {
            for entry in std::fs::read_dir(&current).map_err(io(&current))? {
                let path = entry.map_err(io(&current))?.path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|ext| ext == "toml") {
                    let relative = path.strip_prefix(dir).unwrap_or(&path);
                    found.push(relative.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        found.sort();
        paths.extend(found);
    }
    if paths.is_empty() {
        return Err(PackError::Empty {
            path: dir.to_owned(),
        });
    }
    let mut texts = Vec::new();
    let mut knowledge = Knowledge::default();
    for path in paths {
        let full = dir.join(&path);
        let text = std::fs::read_to_string(&full).map_err(io(&full))?;
        let parsed = Knowledge::parse_texts([(path.as_str(), text.as_str())]).map_err(|e| {
            let span = e.source.span().unwrap_or(0..0);
            let offset = span.start.min(text.len());
            PackError::Invalid {
                path: full.clone(),
                line: text[..offset].matches('\n').count() + 1,
                snippet: Box::new(Snippet::new(
                    &full.display().to_string(),
                    &text,
                    span,
                    "here",
                )),
                source: Box::new(e.source),
            }
        })?;
        knowledge.extend(parsed);
        texts.push((path, text));
    }
    Ok(Pack {
        root: dir.to_owned(),
        knowledge,
        texts,
    })
}

/// Every problem of `pack`, validated with the real matcher `fires` on top of `base` (the
/// embedded knowledge, and the packs before it): their aliases count as known and their
/// ids as taken.
pub fn check_pack(pack: &Pack, fires: Fires<'_>, base: &Knowledge) -> Vec<PackProblem> {
    let checks = Checks {
        fires,
        base: Some(base),
    };
    validate(&pack.knowledge, &checks)
        .into_iter()
        .map(|violation| {
            let text = pack
                .texts
                .iter()
                .find(|(path, _)| *path == violation.path)
                .map(|(_, text)| text.as_str());
            let key = if violation.path == PACKAGES_FILE {
                "package"
            } else {
                "id"
            };
            PackProblem {
                file: pack.root.join(&violation.path),
                line: text.and_then(|text| line_of(text, key, &violation.entry)),
                violation,
            }
        })
        .collect()
}

/// The 1-based line of `key = "value"` in `text`, or of `package = "value"` at the top
/// of an API file.
fn line_of(text: &str, key: &str, value: &str) -> Option<usize> {
    let quoted = format!("\"{value}\"");
    let at = |key: &str| {
        text.lines().position(|line| {
            let line = line.trim_start();
            line.strip_prefix(key)
                .map(str::trim_start)
                .and_then(|rest| rest.strip_prefix('='))
                .is_some_and(|rest| rest.trim() == quoted)
        })
    };
    at(key).or_else(|| at("package")).map(|index| index + 1)
}

/// The embedded knowledge plus the packs in `dirs`, in order, each validated on top of
/// everything before it, so that no pack claims an id the knowledge already has.
pub fn with_packs(dirs: &[PathBuf], fires: Fires<'_>) -> Result<Knowledge, PackError> {
    let mut all = built_in();
    for dir in dirs {
        let pack = load_pack(dir)?;
        let problems = check_pack(&pack, fires, &all);
        if !problems.is_empty() {
            return Err(PackError::Problems {
                root: dir.clone(),
                problems,
            });
        }
        all.extend(pack.knowledge);
    }
    Ok(all)
}

/// Makes the knowledge every rule reads the embedded files plus the packs in `dirs` (see
/// [`with_packs`]). Must run before anything reads the knowledge.
pub fn install_packs(dirs: &[PathBuf], fires: Fires<'_>) -> Result<(), PackError> {
    if dirs.is_empty() {
        return Ok(());
    }
    if ALIASES.get().is_some() || API_FILES.get().is_some() {
        return Err(PackError::InUse);
    }
    let knowledge = with_packs(dirs, fires)?;
    KNOWLEDGE.set(knowledge).map_err(|_| PackError::InUse)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_of_finds_ids_and_packages() {
        let text =
            "ecosystem = \"npm\"\npackage = \"left-pad\"\n\n[[change]]\nid = \"left-pad-x\"\n";
        assert_eq!(line_of(text, "id", "left-pad-x"), Some(5));
        assert_eq!(line_of(text, "id", "left-pad"), Some(2));
        assert_eq!(line_of(text, "id", "other"), None);
    }
}

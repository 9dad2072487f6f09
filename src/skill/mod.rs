//! The skill under review: its SKILL.md (frontmatter and markdown body) and the files in its
//! folder, read and parsed exactly once. Every rule reads this model; none touches the disk.

pub mod code;
pub mod discover;
pub mod error;
pub mod frontmatter;
pub mod markdown;
pub(crate) mod prose_versions;
pub mod quoted;
pub mod references;
pub mod source;
pub mod tokens;

use std::fs;
use std::io::Read;
use std::ops::Range;
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

pub use error::LoadError;
pub use frontmatter::Frontmatter;
pub use markdown::{CodeBlock, Document, Link, Section};
pub use source::SourceFile;

/// Files larger than this are refused (SKILL.md) or not read (other files).
pub const MAX_FILE_BYTES: u64 = 5 * 1024 * 1024;
/// The most entries a skill folder may hold before enumeration stops.
const MAX_ENTRIES: usize = 10_000;
/// How deep enumeration goes below the skill folder.
const MAX_DEPTH: usize = 8;

/// Words that make a line a prohibition ("don't", "never", "avoid", "must not", ...).
pub static PROHIBITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?-u)\b(don(?:'|(?u:’))t|do not|never|avoid|must not|mustn(?:'|(?u:’))t|should not|shouldn(?:'|(?u:’))t|no longer use|refrain from)\b")
        .expect("valid regex")
});

/// A parsed skill.
#[derive(Debug)]
pub struct Skill {
    /// The skill folder.
    pub root: PathBuf,
    /// The SKILL.md text.
    pub source: SourceFile,
    /// The typed frontmatter.
    pub frontmatter: Frontmatter,
    /// The markdown body.
    pub body: Document,
    /// Every other file in the skill folder, sorted by path.
    pub files: Vec<SkillFile>,
    /// Whether enumeration stopped early at the entry or depth limit.
    pub truncated: bool,
    /// Entries of the folder that could not be read (a symlink loop, a dangling link, a
    /// permission refused, a link out of the folder and its repository); the rest of the
    /// skill is read and checked without them.
    pub unreadable: Vec<Unreadable>,
    folder_name: Option<String>,
}

/// An entry of the skill folder that was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    /// Path relative to the skill folder.
    pub rel: String,
    /// Why it was left out.
    pub why: UnreadableWhy,
}

/// Why an entry of the skill folder was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnreadableWhy {
    /// The operating system refused it (the message it gave: a loop of links, a missing
    /// link target, permission denied).
    Io(String),
    /// A symlink whose target lies outside the skill folder and outside the repository
    /// that holds it; its content is not read.
    Outside(PathBuf),
}

impl std::fmt::Display for UnreadableWhy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            UnreadableWhy::Io(message) => write!(f, "cannot be read: {message}"),
            UnreadableWhy::Outside(target) => write!(
                f,
                "is a symlink out of the skill folder and its repository (to {})",
                target.display()
            ),
        }
    }
}

/// What a file in the skill folder is for, by its top-level folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// Under `scripts/`.
    Script,
    /// Under `references/`.
    Reference,
    /// Under `assets/`.
    Asset,
    /// Anywhere else.
    Other,
}

/// A file of the skill folder other than SKILL.md.
#[derive(Debug)]
pub struct SkillFile {
    /// Path relative to the skill folder, with `/` separators.
    pub rel: String,
    /// What it is for.
    pub kind: FileKind,
    /// Size in bytes.
    pub size: u64,
    /// Its text, when it is UTF-8 and under the size limit.
    pub source: Option<SourceFile>,
    /// Its parsed markdown, when it is a markdown file with text.
    pub doc: Option<Document>,
}

impl Skill {
    /// Load a skill from a SKILL.md path or from a folder that holds one.
    pub fn load(path: &Path) -> Result<Skill, LoadError> {
        let (root, manifest) = locate(path)?;
        let text = read_text(&manifest)?;
        let source = SourceFile::new(manifest, text);
        let (frontmatter, body_start) = frontmatter::parse(&source)?;
        let body = Document::parse(&source.text, body_start..source.text.len());
        let mut skill = Skill {
            root,
            source,
            frontmatter,
            body,
            files: Vec::new(),
            truncated: false,
            unreadable: Vec::new(),
            folder_name: None,
        };
        skill.enumerate()?;
        Ok(skill)
    }

    /// The manifest's file name as found (`SKILL.md`, or a misspelling such as `skill.md`).
    pub fn manifest_name(&self) -> &str {
        self.source
            .path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("SKILL.md")
    }

    /// The skill folder's own name.
    pub fn folder_name(&self) -> Option<&str> {
        self.folder_name.as_deref()
    }

    /// The `name` from the frontmatter, if present.
    pub fn name(&self) -> Option<&str> {
        self.frontmatter.name.as_ref().map(|f| f.value.as_str())
    }

    /// Prose lines of the body that state a prohibition, as byte ranges in SKILL.md.
    pub fn prohibition_lines(&self) -> impl Iterator<Item = &Range<usize>> {
        self.body
            .prose_lines
            .iter()
            .filter(|l| PROHIBITION.is_match(&self.source.text[(*l).clone()].to_ascii_lowercase()))
    }

    /// A file of the folder by its relative path.
    pub fn file(&self, rel: &str) -> Option<&SkillFile> {
        self.files
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .ok()
            .map(|i| &self.files[i])
    }

    /// Whether a relative path names a folder that holds files of the skill.
    pub fn has_dir(&self, rel: &str) -> bool {
        let prefix = format!("{}/", rel.trim_end_matches('/'));
        self.files.iter().any(|f| f.rel.starts_with(&prefix))
    }

    /// Walk the skill folder breadth-first, reading text files and parsing markdown ones.
    fn enumerate(&mut self) -> Result<(), LoadError> {
        let root = if self.root.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            self.root.clone()
        };
        let canonical_root = root.canonicalize().map_err(|source| LoadError::Io {
            path: self.root.clone(),
            source,
        })?;
        self.folder_name = canonical_root
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_owned);
        let manifest_name = self.source.path.file_name().map(ToOwned::to_owned);
        // A link may lead anywhere in the repository that holds the skill (a `scripts` link
        // to the repository's own scripts); beyond it, nothing is read.
        let repository = enclosing_repository(&canonical_root);
        let allowed = repository.as_deref().unwrap_or(&canonical_root);
        let mut visited = vec![canonical_root.clone()];
        let mut queue = vec![(root, String::new(), 0usize)];
        let mut seen = 0usize;
        let mut found = Vec::new();
        while let Some((dir, rel_dir, depth)) = queue.pop() {
            let entries = match fs::read_dir(&dir) {
                Ok(entries) => entries,
                // The skill folder itself must be readable; a folder below it is one entry.
                Err(source) if rel_dir.is_empty() => {
                    return Err(LoadError::Io {
                        path: dir.clone(),
                        source,
                    });
                }
                Err(source) => {
                    self.unreadable.push(Unreadable {
                        rel: rel_dir.clone(),
                        why: UnreadableWhy::Io(source.to_string()),
                    });
                    continue;
                }
            };
            for entry in entries {
                let Ok(entry) = entry else { continue };
                let name = entry.file_name();
                let Some(name_str) = name.to_str() else {
                    continue;
                };
                if name_str == ".git" || (depth == 0 && Some(&name) == manifest_name.as_ref()) {
                    continue;
                }
                seen += 1;
                if seen > MAX_ENTRIES {
                    self.truncated = true;
                    break;
                }
                let path = entry.path();
                let rel = if rel_dir.is_empty() {
                    name_str.to_owned()
                } else {
                    format!("{rel_dir}/{name_str}")
                };
                let mut left_out = |why| {
                    self.unreadable.push(Unreadable {
                        rel: rel.clone(),
                        why,
                    });
                };
                let meta = match fs::symlink_metadata(&path) {
                    Ok(meta) => meta,
                    Err(e) => {
                        left_out(UnreadableWhy::Io(e.to_string()));
                        continue;
                    }
                };
                let meta = if meta.file_type().is_symlink() {
                    let target = match fs::canonicalize(&path) {
                        Ok(target) => target,
                        Err(e) => {
                            left_out(UnreadableWhy::Io(e.to_string()));
                            continue;
                        }
                    };
                    if !target.starts_with(allowed) {
                        left_out(UnreadableWhy::Outside(target));
                        continue;
                    }
                    match fs::metadata(&target) {
                        Ok(meta) if meta.is_dir() && visited.contains(&target) => continue,
                        Ok(meta) => {
                            if meta.is_dir() {
                                visited.push(target);
                            }
                            meta
                        }
                        Err(e) => {
                            left_out(UnreadableWhy::Io(e.to_string()));
                            continue;
                        }
                    }
                } else {
                    meta
                };
                if meta.is_dir() {
                    if depth + 1 < MAX_DEPTH {
                        queue.push((path, rel, depth + 1));
                    } else {
                        self.truncated = true;
                    }
                } else if meta.is_file() {
                    found.push((path, rel, meta.len()));
                }
            }
        }
        let (files, unreadable) = read_skill_files(found);
        self.files = files;
        self.files.sort_by(|a, b| a.rel.cmp(&b.rel));
        self.unreadable.extend(unreadable);
        self.unreadable.sort_by(|a, b| a.rel.cmp(&b.rel));
        Ok(())
    }
}

/// Why a user-given path cannot be opened: nothing there, a link to nothing, or an I/O error.
fn unreachable_path(path: &Path, source: std::io::Error) -> LoadError {
    if source.kind() != std::io::ErrorKind::NotFound {
        return LoadError::Io {
            path: path.to_owned(),
            source,
        };
    }
    match fs::read_link(path) {
        Ok(target) => LoadError::DanglingLink {
            path: path.to_owned(),
            target,
        },
        Err(_) => LoadError::NotFound {
            path: path.to_owned(),
        },
    }
}

/// Find the skill folder and its manifest from a user-given path.
fn locate(path: &Path) -> Result<(PathBuf, PathBuf), LoadError> {
    let meta = fs::metadata(path).map_err(|source| unreachable_path(path, source))?;
    if meta.is_dir() {
        let exact = path.join("SKILL.md");
        if exact.is_file() {
            return Ok((path.to_owned(), exact));
        }
        let entries = fs::read_dir(path).map_err(|source| LoadError::Io {
            path: path.to_owned(),
            source,
        })?;
        let mut names: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.file_name()
                        .is_some_and(|n| frontmatter::is_manifest_name(Path::new(n)))
            })
            .collect();
        names.sort();
        return match names.into_iter().next() {
            Some(manifest) => Ok((path.to_owned(), manifest)),
            None => Err(LoadError::NoSkillFile {
                path: path.to_owned(),
            }),
        };
    }
    let root = path.parent().map(Path::to_owned).unwrap_or_default();
    Ok((root, path.to_owned()))
}

/// Read a whole text file, refusing what a SKILL.md cannot be.
fn read_text(path: &Path) -> Result<String, LoadError> {
    let io = |source| LoadError::Io {
        path: path.to_owned(),
        source,
    };
    let file = fs::File::open(path).map_err(io)?;
    let size = file.metadata().map_err(io)?.len();
    if size > MAX_FILE_BYTES {
        return Err(LoadError::TooLarge {
            path: path.to_owned(),
            size,
            limit: MAX_FILE_BYTES,
        });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(LoadError::Empty {
            path: path.to_owned(),
        });
    }
    if bytes.contains(&0) {
        return Err(LoadError::Binary {
            path: path.to_owned(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.as_bytes()[..valid]).into_owned();
        let probe = SourceFile::new(path.to_owned(), text);
        let (line, column) = probe.line_column(valid);
        LoadError::NotUtf8 {
            path: path.to_owned(),
            line,
            column,
        }
    })
}

/// The git repository (a folder holding `.git`) that holds `folder`, if any.
pub fn enclosing_repository(folder: &Path) -> Option<PathBuf> {
    folder
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .map(Path::to_owned)
}

/// Bytes of folder files above which they are read and parsed on every core: below it,
/// starting threads costs more than it saves.
const PARALLEL_BYTES: u64 = 256 * 1024;

/// A file found in the skill folder: its path, path relative to the folder, and size.
type FoundFile = (PathBuf, String, u64);

/// Read the folder's files, on every core when they are large together (a skill with
/// megabytes of references); the order of the result is not the order of `found`. Files
/// the system refuses to read come back apart.
fn read_skill_files(found: Vec<FoundFile>) -> (Vec<SkillFile>, Vec<Unreadable>) {
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for read in read_all(found) {
        match read {
            Ok(file) => files.push(file),
            Err(refused) => unreadable.push(refused),
        }
    }
    (files, unreadable)
}

fn read_all(found: Vec<FoundFile>) -> Vec<Result<SkillFile, Unreadable>> {
    let bytes: u64 = found
        .iter()
        .map(|(_, _, size)| (*size).min(MAX_FILE_BYTES))
        .sum();
    // Asking for the cores reads the cgroup files: only worth it for a large folder.
    let threads = if bytes < PARALLEL_BYTES {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(found.len())
    };
    if threads < 2 {
        return found
            .into_iter()
            .map(|(path, rel, size)| read_skill_file(path, rel, size))
            .collect();
    }
    // Deal the files out largest first, each to the thread with the fewest bytes so far.
    let mut found = found;
    found.sort_by_key(|(_, _, size)| std::cmp::Reverse(*size));
    let mut shares: Vec<(u64, Vec<FoundFile>)> = vec![(0, Vec::new()); threads];
    for file in found {
        if let Some(share) = shares.iter_mut().min_by_key(|(load, _)| *load) {
            share.0 += file.2.min(MAX_FILE_BYTES);
            share.1.push(file);
        }
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = shares
            .into_iter()
            .map(|(_, share)| {
                scope.spawn(move || {
                    share
                        .into_iter()
                        .map(|(path, rel, size)| read_skill_file(path, rel, size))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|handle| {
                handle
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
            .collect()
    })
}

/// Read one folder file: text when it is small UTF-8, parsed when it is markdown. Its tokens
/// are not counted: only a threshold rule reads them, from the text.
fn read_skill_file(path: PathBuf, rel: String, size: u64) -> Result<SkillFile, Unreadable> {
    let kind = match rel.split('/').next() {
        Some("scripts") => FileKind::Script,
        Some("references") => FileKind::Reference,
        Some("assets") => FileKind::Asset,
        _ => FileKind::Other,
    };
    let bytes = if size <= MAX_FILE_BYTES {
        match fs::read(&path) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                return Err(Unreadable {
                    rel,
                    why: UnreadableWhy::Io(e.to_string()),
                });
            }
        }
    } else {
        None
    };
    let text = bytes
        .filter(|b| !b.contains(&0))
        .and_then(|b| String::from_utf8(b).ok());
    let source = text.map(|t| SourceFile::new(path, t));
    let is_markdown = rel.ends_with(".md") || rel.ends_with(".markdown");
    let doc = source
        .as_ref()
        .filter(|_| is_markdown)
        .map(|s| Document::parse_uncounted(&s.text, 0..s.text.len()));
    Ok(SkillFile {
        rel,
        kind,
        size,
        source,
        doc,
    })
}

/// Normalise a relative path inside the skill (`a/./b/../c` -> `a/c`); `None` when it climbs
/// out of the folder.
pub fn normalize_rel(base_dir: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = base_dir.split('/').filter(|p| !p.is_empty()).collect();
    for comp in Path::new(target).components() {
        match comp {
            Component::Normal(p) => parts.push(p.to_str()?),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::normalize_rel;

    #[test]
    fn relative_paths_normalise_and_never_climb_out() {
        assert_eq!(
            normalize_rel("", "references/./a.md").as_deref(),
            Some("references/a.md")
        );
        assert_eq!(
            normalize_rel("references", "../scripts/x.py").as_deref(),
            Some("scripts/x.py")
        );
        assert_eq!(normalize_rel("", "../outside.md"), None);
    }
}

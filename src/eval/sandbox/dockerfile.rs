//! What of a task's `environment/Dockerfile` the local backend reproduces: the final
//! stage's `WORKDIR`, its `COPY` and `ADD` of files from the build context (the
//! `environment/` folder; globs honoured, `--chown` and `--chmod` ignored, here-documents
//! written out) and its `ENV`. What it cannot (a `RUN`, files from another stage or image,
//! a remote `ADD`, a destination inside the host's own folders) is listed as
//! [`Recipe::missing`], one short line a step, for `tasks check` and the journal; a `RUN`
//! that only installs packages is not, and the packages are listed as
//! [`Recipe::installs`] for the host to have. A `RUN` that only makes files (`mkdir -p
//! /app/data`, `printf … > /app/in.txt`) is kept among the files, in order, as
//! [`Placed::Run`], for the cell to run where it may write.
//!
//! The Dockerfile is read with the `parse-dockerfile` crate; `$VAR` and `${VAR}` in paths
//! and values are expanded from the stage's `ARG` defaults and `ENV`, as Docker does.

use std::path::{Path, PathBuf};

use parse_dockerfile::{Instruction, Source};

use crate::eval::sandbox::installs::{Install, read_run, run_command};

/// One file the image would hold, taken from the build context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placed {
    /// A file of the context, copied to the absolute sandbox path.
    File { from: PathBuf, to: String },
    /// A here-document's text, written to the absolute sandbox path.
    Text { text: String, to: String },
    /// A `RUN` step that only makes files (see [`installs`]), run in its working directory
    /// with the stage's `ARG` and `ENV` values so far.
    ///
    /// [`installs`]: crate::eval::sandbox::installs
    Run {
        /// The command, as Docker runs it.
        argv: Vec<String>,
        /// The stage's working directory at the step.
        workdir: String,
        /// The `ARG` and `ENV` values so far.
        env: Vec<(String, String)>,
        /// The absolute paths the step names.
        paths: Vec<String>,
        /// Whether it names paths relative to its working directory.
        relative: bool,
        /// The step, quoted on one line.
        step: String,
    },
}

/// What the local backend makes of a task's `environment/Dockerfile`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recipe {
    /// The final stage's working directory (absolute), when it sets one.
    pub workdir: Option<String>,
    /// Files to place, in the Dockerfile's order.
    pub files: Vec<Placed>,
    /// Environment variables the image sets, in order.
    pub env: Vec<(String, String)>,
    /// Steps the local backend cannot reproduce, one short line each.
    pub missing: Vec<String>,
    /// Packages the `RUN` steps install, for the host to have (see [`installs`]).
    ///
    /// [`installs`]: crate::eval::sandbox::installs
    pub installs: Vec<Install>,
}

/// A Dockerfile that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum DockerfileError {
    /// The file cannot be read.
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The parser refuses it.
    #[error("{path} does not parse: {message}")]
    Parse { path: PathBuf, message: String },
}

/// The longest a step is quoted in a note.
const QUOTE: usize = 60;

impl Recipe {
    /// Reads `environment/Dockerfile` under the task folder `task_dir`; `None` without one.
    pub fn read(task_dir: &Path) -> Result<Option<Self>, DockerfileError> {
        let context = task_dir.join("environment");
        let path = context.join("Dockerfile");
        if !path.is_file() {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&path).map_err(|source| DockerfileError::Read {
            path: path.clone(),
            source,
        })?;
        let parsed = parse_dockerfile::parse(&text).map_err(|e| DockerfileError::Parse {
            path: path.clone(),
            message: e.to_string(),
        })?;
        Ok(Some(Self::from_instructions(
            &parsed.instructions,
            &text,
            &context,
        )))
    }

    /// The note listing what is not reproduced, when something is not.
    pub fn note(&self) -> Option<String> {
        (!self.missing.is_empty()).then(|| {
            format!(
                "the local backend does not reproduce these environment/Dockerfile steps: {}",
                self.missing.join("; ")
            )
        })
    }

    /// Top-level sandbox folders the placed files need that the host does not have (they
    /// are the cell's own, like `/app`).
    pub fn own_tops(&self, host_has: impl Fn(&str) -> bool) -> Vec<String> {
        let mut tops: Vec<String> = self
            .files
            .iter()
            .flat_map(Placed::places)
            .filter_map(top)
            .filter(|t| !host_has(t))
            .collect();
        tops.sort();
        tops.dedup();
        tops
    }

    fn from_instructions(instructions: &[Instruction<'_>], text: &str, context: &Path) -> Self {
        let stages: Vec<usize> = instructions
            .iter()
            .enumerate()
            .filter(|(_, i)| matches!(i, Instruction::From(_)))
            .map(|(n, _)| n)
            .collect();
        let names: Vec<String> = instructions
            .iter()
            .filter_map(|i| match i {
                Instruction::From(f) => f.as_.as_ref().map(|(_, n)| n.value.to_lowercase()),
                _ => None,
            })
            .collect();
        let start = stages.last().copied().unwrap_or(0);
        let mut recipe = Self::default();
        let mut vars: Vec<(String, String)> = Vec::new();
        // Global ARGs (before the first FROM) with a default.
        for i in &instructions[..stages.first().copied().unwrap_or(0)] {
            if let Instruction::Arg(a) = i {
                vars.extend(
                    pairs(&a.arguments.value)
                        .into_iter()
                        .filter(|(_, v)| !v.is_empty()),
                );
            }
        }
        let mut workdir = "/".to_owned();
        for instruction in &instructions[start..] {
            match instruction {
                Instruction::From(f) => {
                    let image = f.image.value.to_lowercase();
                    if names.contains(&image) {
                        recipe
                            .missing
                            .push(format!("FROM {} (another stage's files)", f.image.value));
                    }
                }
                Instruction::Arg(a) => {
                    for (k, v) in pairs(&a.arguments.value) {
                        if !v.is_empty() || !vars.iter().any(|(n, _)| *n == k) {
                            vars.push((k, v));
                        }
                    }
                }
                Instruction::Env(e) => {
                    for (k, v) in pairs(&e.arguments.value) {
                        let v = expand(&v, &vars);
                        vars.push((k.clone(), v.clone()));
                        recipe.env.retain(|(n, _)| *n != k);
                        recipe.env.push((k, v));
                    }
                }
                Instruction::Workdir(w) => {
                    workdir = absolute(&workdir, &expand(&w.arguments.value, &vars));
                    recipe.workdir = Some(workdir.clone());
                }
                Instruction::Copy(c) => {
                    let from = c
                        .options
                        .iter()
                        .find(|f| f.name.value == "from")
                        .and_then(|f| f.value.as_ref());
                    if let Some(from) = from {
                        recipe.missing.push(format!(
                            "COPY --from={} (another stage's or image's files)",
                            from.value
                        ));
                        continue;
                    }
                    recipe.place(
                        &c.src,
                        &c.dest.value,
                        &workdir,
                        &vars,
                        context,
                        "COPY",
                        false,
                    );
                }
                Instruction::Add(a) => {
                    recipe.place(&a.src, &a.dest.value, &workdir, &vars, context, "ADD", true);
                }
                Instruction::Run(_) => {
                    let span = instruction_text(instruction, text);
                    // Package installs are checked on the host; a step doing anything
                    // else is not reproduced.
                    let step = read_run(&expand(&span, &vars));
                    recipe.installs.extend(step.installs);
                    match step.makes_files {
                        _ if step.understood => {}
                        Some(paths) => recipe.files.push(Placed::Run {
                            argv: run_command(&span),
                            workdir: workdir.clone(),
                            env: vars.clone(),
                            paths,
                            relative: step.relative,
                            step: quote(&span),
                        }),
                        None => recipe.missing.push(quote(&span)),
                    }
                }
                _ => {}
            }
        }
        recipe
    }

    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        sources: &[Source<'_>],
        dest: &str,
        workdir: &str,
        vars: &[(String, String)],
        context: &Path,
        keyword: &str,
        add: bool,
    ) {
        let dest = expand(dest, vars);
        let into_dir = dest.ends_with('/') || sources.len() > 1;
        let dest = absolute(workdir, &dest);
        for source in sources {
            match source {
                Source::HereDoc(doc) => {
                    let to = dest.clone();
                    self.files.push(Placed::Text {
                        text: doc.value.clone().into_owned(),
                        to,
                    });
                }
                Source::Path(p) => {
                    let src = expand(&p.value, vars);
                    if add && is_remote(&src) {
                        self.missing.push(format!("ADD {src} (a remote file)"));
                        continue;
                    }
                    if add && is_archive(&src) {
                        self.missing
                            .push(format!("ADD {src} (an archive Docker unpacks)"));
                        continue;
                    }
                    let matched = matches(context, &src);
                    if matched.is_empty() {
                        self.missing
                            .push(format!("{keyword} {src} (no such file in environment/)"));
                        continue;
                    }
                    let many = into_dir || matched.len() > 1 || has_glob(&src);
                    for (path, is_dir) in matched {
                        if is_dir {
                            for (file, rel) in files_under(&path) {
                                self.files.push(Placed::File {
                                    from: file,
                                    to: join(&dest, &rel),
                                });
                            }
                        } else {
                            let name = path
                                .file_name()
                                .map(|n| n.to_string_lossy().into_owned())
                                .unwrap_or_default();
                            let to = if many {
                                join(&dest, &name)
                            } else {
                                dest.clone()
                            };
                            self.files.push(Placed::File { from: path, to });
                        }
                    }
                }
                _ => {}
            }
        }
    }
}

impl Placed {
    /// The absolute sandbox path it goes to (a step's working directory).
    pub fn to(&self) -> &str {
        match self {
            Self::File { to, .. } | Self::Text { to, .. } => to,
            Self::Run { workdir, .. } => workdir,
        }
    }

    /// Every absolute sandbox path it writes or names: a file's destination, a step's
    /// paths and, when it names relative ones, its working directory.
    pub fn places(&self) -> Vec<&str> {
        match self {
            Self::Run {
                workdir,
                paths,
                relative,
                ..
            } => relative
                .then_some(workdir.as_str())
                .into_iter()
                .chain(paths.iter().map(String::as_str))
                .collect(),
            _ => vec![self.to()],
        }
    }
}

/// The top-level folder of an absolute path (`data` for `/data/in.json`).
pub fn top(path: &str) -> Option<String> {
    path.trim_start_matches('/')
        .split('/')
        .next()
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
}

fn instruction_text(instruction: &Instruction<'_>, text: &str) -> String {
    let Instruction::Run(run) = instruction else {
        return String::new();
    };
    let start = run.run.span.start;
    let end = match &run.arguments {
        parse_dockerfile::Command::Exec(e) => e.span.end,
        parse_dockerfile::Command::Shell(s) => s.span.end,
        _ => run.run.span.end,
    };
    text.get(start..end).unwrap_or("RUN").to_owned()
}

/// One line, at most [`QUOTE`] characters.
fn quote(step: &str) -> String {
    let line: String = step
        .split_whitespace()
        .filter(|w| *w != "\\")
        .collect::<Vec<_>>()
        .join(" ");
    if line.chars().count() <= QUOTE {
        line
    } else {
        let cut: String = line.chars().take(QUOTE - 1).collect();
        format!("{cut}…")
    }
}

fn is_remote(src: &str) -> bool {
    ["http://", "https://", "git@", "git://"]
        .iter()
        .any(|p| src.starts_with(p))
}

fn is_archive(src: &str) -> bool {
    [
        ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz",
    ]
    .iter()
    .any(|s| src.ends_with(s))
}

fn has_glob(src: &str) -> bool {
    src.contains(['*', '?', '['])
}

/// `path` against the working directory `base`, normalised (`.` and `..` resolved).
fn absolute(base: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("{base}/{path}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

fn join(dir: &str, rel: &str) -> String {
    absolute(dir, rel)
}

/// The context entries a source names: a path, or a glob over the context's paths (matched
/// as Docker's `filepath.Match`: `*` stays within one folder).
fn matches(context: &Path, src: &str) -> Vec<(PathBuf, bool)> {
    let rel = absolute("/", src);
    let rel = rel.trim_start_matches('/');
    if rel.is_empty() {
        return vec![(context.to_owned(), true)];
    }
    if !has_glob(rel) {
        let path = context.join(rel);
        return match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => vec![(path, true)],
            Ok(m) if m.is_file() => vec![(path, false)],
            _ => Vec::new(),
        };
    }
    let Ok(glob) = globset::GlobBuilder::new(rel)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
    else {
        return Vec::new();
    };
    let depth = rel.split('/').count();
    let mut found: Vec<(PathBuf, bool)> = walkdir(context, depth)
        .into_iter()
        .filter(|(path, _)| {
            path.strip_prefix(context)
                .is_ok_and(|r| glob.is_match(r.to_string_lossy().as_ref()))
        })
        .collect();
    found.sort();
    found
}

/// Entries of `dir` down to `depth` levels (without following links).
fn walkdir(dir: &Path, depth: usize) -> Vec<(PathBuf, bool)> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            out.push((path.clone(), true));
            if depth > 1 {
                out.extend(walkdir(&path, depth - 1));
            }
        } else if kind.is_file() {
            out.push((path, false));
        }
    }
    out
}

/// Every regular file under `dir`, with its path relative to it.
fn files_under(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut out: Vec<(PathBuf, String)> = walkdir(dir, usize::MAX)
        .into_iter()
        .filter(|(_, is_dir)| !is_dir)
        .filter_map(|(p, _)| {
            let rel = p.strip_prefix(dir).ok()?.to_string_lossy().into_owned();
            Some((p, rel))
        })
        .collect();
    out.sort();
    out
}

/// `KEY=value KEY2="two words"` (or the old `KEY value`) as pairs; an `ARG` without a
/// default gives an empty value.
fn pairs(arguments: &str) -> Vec<(String, String)> {
    let words = words(arguments);
    if let Some(first) = words.first()
        && !first.contains('=')
        && words.len() > 1
    {
        // `ENV KEY value with spaces`.
        let rest = arguments.trim_start()[first.len()..].trim().to_owned();
        return vec![(first.clone(), unquote(&rest))];
    }
    words
        .into_iter()
        .map(|w| match w.split_once('=') {
            Some((k, v)) => (k.to_owned(), v.to_owned()),
            None => (w, String::new()),
        })
        .collect()
}

/// Splits on unquoted blanks and removes the quotes (and backslash escapes).
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = text.chars();
    while let Some(ch) = chars.next() {
        match (quote, ch) {
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, '"' | '\'') => {
                quote = Some(ch);
                in_word = true;
            }
            (Some(q), c) if c == q => quote = None,
            (Some('\''), c) => word.push(c),
            (_, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
                in_word = true;
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(word);
    }
    out
}

fn unquote(value: &str) -> String {
    words(value).join(" ")
}

/// Expands `$VAR`, `${VAR}` and `${VAR:-default}` from `vars` (the latest value wins), and
/// from the host's environment for what the Dockerfile does not set (`$PATH`).
fn expand(text: &str, vars: &[(String, String)]) -> String {
    let lookup = |name: &str| {
        vars.iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    };
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(body) = after.strip_prefix('{')
            && let Some(end) = body.find('}')
        {
            let inner = &body[..end];
            let (name, default) = match inner.split_once(":-") {
                Some((n, d)) => (n, Some(d)),
                None => (inner, None),
            };
            let value = lookup(name).filter(|v| !v.is_empty() || default.is_none());
            out.push_str(&value.unwrap_or_else(|| default.unwrap_or("").to_owned()));
            rest = &body[end + 1..];
            continue;
        }
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        if len == 0 {
            out.push('$');
            rest = after;
            continue;
        }
        out.push_str(&lookup(&after[..len]).unwrap_or_default());
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recipe(dockerfile: &str, files: &[(&str, &str)]) -> (tempfile::TempDir, Recipe) {
        let tmp = tempfile::tempdir().unwrap();
        let env = tmp.path().join("environment");
        std::fs::create_dir_all(&env).unwrap();
        std::fs::write(env.join("Dockerfile"), dockerfile).unwrap();
        for (path, text) in files {
            let p = env.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let r = Recipe::read(tmp.path()).unwrap().unwrap();
        (tmp, r)
    }

    fn targets(r: &Recipe) -> Vec<&str> {
        r.files.iter().map(Placed::to).collect()
    }

    #[test]
    fn workdir_copy_env_and_what_is_missing() {
        let (_t, r) = recipe(
            "FROM python:3.12-slim\nARG DATA=/srv/data\nWORKDIR /app\n\
             COPY --chown=1000:1000 problem.json ./\nCOPY inputs/*.csv /app/inputs/\n\
             COPY conf $DATA/conf\nENV MODE=fast LABEL=\"two words\"\nENV OLD value here\n\
             RUN pip install \\\n    numpy==2.0\nRUN make -C $DATA\nADD https://example.org/x.bin /opt/x.bin\n\
             COPY --from=builder /out /app/out\nWORKDIR sub\n",
            &[
                ("problem.json", "{}"),
                ("inputs/a.csv", "a"),
                ("inputs/b.csv", "b"),
                ("inputs/notes.txt", "n"),
                ("conf/x/y.toml", "y"),
            ],
        );
        assert_eq!(r.workdir.as_deref(), Some("/app/sub"));
        assert_eq!(
            targets(&r),
            vec![
                "/app/problem.json",
                "/app/inputs/a.csv",
                "/app/inputs/b.csv",
                "/srv/data/conf/x/y.toml"
            ]
        );
        assert_eq!(
            r.env,
            vec![
                ("MODE".to_owned(), "fast".to_owned()),
                ("LABEL".to_owned(), "two words".to_owned()),
                ("OLD".to_owned(), "value here".to_owned()),
            ]
        );
        assert_eq!(
            r.missing,
            vec![
                "RUN make -C $DATA",
                "ADD https://example.org/x.bin (a remote file)",
                "COPY --from=builder (another stage's or image's files)",
            ]
        );
        assert!(r.note().unwrap().contains("RUN make -C $DATA"));
        // A step that only installs packages is checked on the host, not noted.
        assert_eq!(
            r.installs,
            vec![crate::eval::sandbox::installs::Install {
                manager: crate::eval::sandbox::installs::Manager::Pip,
                package: "numpy".into(),
                pinned: Some("2.0".into()),
            }]
        );
        assert_eq!(r.own_tops(|t| t == "srv"), vec!["app"]);
    }

    #[test]
    fn only_the_final_stage_counts_and_a_single_file_may_be_renamed() {
        let (_t, r) = recipe(
            "FROM alpine AS build\nRUN make\nCOPY a.txt /ignored\nFROM build\n\
             COPY a.txt /data/renamed.txt\nCOPY <<EOF /data/hello.txt\nhello\nEOF\n",
            &[("a.txt", "a")],
        );
        assert_eq!(targets(&r), vec!["/data/renamed.txt", "/data/hello.txt"]);
        assert_eq!(r.workdir, None);
        assert_eq!(r.missing, vec!["FROM build (another stage's files)"]);
        assert!(matches!(&r.files[1], Placed::Text { text, .. } if text == "hello\n"));
    }

    #[test]
    fn a_step_that_only_makes_files_is_kept_in_order_with_its_values() {
        let (_t, r) = recipe(
            "FROM debian\nARG N=3\nRUN mkdir -p /app/data\nWORKDIR /app\nCOPY a.txt data/\n\
             ENV MODE=fast\nRUN printf \"$N\" > data/n.txt\nRUN make\n",
            &[("a.txt", "a")],
        );
        assert_eq!(targets(&r), vec!["/", "/app/data/a.txt", "/app"]);
        let Placed::Run {
            argv,
            env,
            paths,
            step,
            ..
        } = &r.files[2]
        else {
            panic!("{:?}", r.files[2]);
        };
        assert_eq!(argv, &["/bin/sh", "-c", "printf \"$N\" > data/n.txt"]);
        assert_eq!(
            env,
            &[
                ("N".to_owned(), "3".to_owned()),
                ("MODE".to_owned(), "fast".to_owned())
            ]
        );
        assert!(paths.is_empty());
        assert_eq!(step, "RUN printf \"$N\" > data/n.txt");
        // Its paths are absolute: the step works from `/` without writing there.
        assert_eq!(r.files[0].places(), vec!["/app/data"]);
        assert_eq!(r.files[2].places(), vec!["/app"]);
        assert_eq!(r.missing, vec!["RUN make"]);
    }

    #[test]
    fn a_file_that_is_not_there_is_said() {
        let (_t, r) = recipe("FROM debian\nWORKDIR /app\nCOPY missing.json .\n", &[]);
        assert!(r.files.is_empty());
        assert_eq!(
            r.missing,
            vec!["COPY missing.json (no such file in environment/)"]
        );
    }
}

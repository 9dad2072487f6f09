//! `skillgate audit`: every skill below some folders checked in parallel, one [`Row`] each
//! in a deterministic order, findings across the set ([`set`]), and shards that merge back
//! into exactly the output of a single run ([`shard`], [`merge`]).
//!
//! Nothing here reads a skill differently from `check`: each row comes from the same
//! loader, rules and static verdict; only what a row keeps of it is smaller, so memory
//! stays flat over tens of thousands of skills.

pub mod fingerprint;
pub mod format;
mod html;
pub mod merge;
pub mod render;
pub mod row;
pub mod set;
pub use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::finding::Severity;
use crate::lint;
use crate::project::Project;
use crate::render::display;
use crate::skill::{LoadError, Skill, discover, tokens};
use crate::verdict::{self, Decision, VerdictPolicy};

pub use crate::shard::Shard;
pub use fingerprint::Fingerprint;
pub use row::{FindingRecord, Row, RowFit};
pub use set::{AuditSettings, SetCounts};

/// Version of the audit JSON and JSON-lines contract.
pub const SCHEMA: u32 = 1;

/// A whole audit: the rows sorted by path, and the counts over them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Audit {
    /// Contract version.
    pub schema: u32,
    /// One row per skill, sorted by path.
    pub skills: Vec<Row>,
    /// Counts over the rows.
    pub summary: Summary,
}

/// Counts over an audit's rows, printed at the end of every format.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Skills found.
    pub skills: usize,
    /// Skills that could not be read.
    pub unreadable: usize,
    /// Error-level findings over all skills.
    pub errors: usize,
    /// Warning-level findings.
    pub warnings: usize,
    /// Info-level findings.
    pub infos: usize,
    /// Security findings (SG6xx).
    pub security: usize,
    /// Skills whose static decision is `inject`.
    pub inject: usize,
    /// Skills whose static decision is `skip`.
    pub skip: usize,
    /// Readable skills with at least one error finding of their own: what an evaluation
    /// could not overturn.
    #[serde(default)]
    pub blocked: usize,
    /// Skills per stack fit, when a repository was scanned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fit: Option<BTreeMap<RowFit, usize>>,
    /// What the set-level rules found.
    #[serde(flatten)]
    pub set: SetCounts,
    /// The listing budget the set was held to (`[audit] listing-tokens`).
    pub listing_budget: usize,
    /// The near-duplicate threshold used (`[audit] near-duplicate`).
    pub near_duplicate: f64,
    /// Set-level rules the rule selection turned off, by code; absent when all ran.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disabled_set_rules: Vec<String>,
    /// Which share of a sharded audit this is; absent for a whole audit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

impl Audit {
    /// Sort `rows` by path (dropping a skill found twice), run the set-level rules over
    /// them and count.
    pub fn assemble(
        mut rows: Vec<Row>,
        settings: &AuditSettings,
        repo_scanned: bool,
        shard: Option<Shard>,
    ) -> Audit {
        rows.sort_by(|a, b| a.path.cmp(&b.path));
        rows.dedup_by(|a, b| a.path == b.path);
        let set = set::apply(&mut rows, settings);
        let count = |f: fn(&Row) -> usize| rows.iter().map(f).sum();
        let decided = |d: Decision| rows.iter().filter(|r| r.decision == Some(d)).count();
        let fit = repo_scanned.then(|| {
            let mut by_fit = BTreeMap::new();
            for fit in rows.iter().filter_map(|r| r.fit) {
                *by_fit.entry(fit).or_insert(0) += 1;
            }
            by_fit
        });
        let summary = Summary {
            skills: rows.len(),
            unreadable: rows.iter().filter(|r| r.error.is_some()).count(),
            errors: count(|r| r.errors),
            warnings: count(|r| r.warnings),
            infos: count(|r| r.infos),
            security: count(|r| r.security),
            inject: decided(Decision::Inject),
            skip: decided(Decision::Skip),
            blocked: rows
                .iter()
                .filter(|r| r.error.is_none() && !r.blocking().is_empty())
                .count(),
            fit,
            set,
            listing_budget: settings.listing_tokens,
            near_duplicate: settings.near_duplicate,
            disabled_set_rules: settings.disabled.clone(),
            shard,
        };
        Audit {
            schema: SCHEMA,
            skills: rows,
            summary,
        }
    }

    /// Whether any row fails a run that fails on the severities `fails` accepts.
    pub fn fails(&self, fails: impl Fn(Severity) -> bool + Copy) -> bool {
        self.skills.iter().any(|r| r.fails(fails))
    }
}

/// What an audit loads, and the user-given paths that name nothing.
#[derive(Debug, Default)]
pub struct Targets {
    /// Paths to load, sorted: each skill once, and each link to nothing found where a skill
    /// or a folder of skills would be (its row says so).
    pub paths: Vec<PathBuf>,
    /// Given paths with nothing there (missing, a link to nothing, a folder without skills).
    pub unreachable: Vec<LoadError>,
}

/// The skills under `roots`, as paths to load, each real skill once (a skill reached
/// through a linked folder too is listed under its own path), sorted. With `--shard`, the
/// shard's share by each path relative to the root it was found under.
pub fn targets(roots: &[PathBuf], shard: Option<Shard>) -> Targets {
    let mut out = Vec::new();
    let mut unreachable = Vec::new();
    for found in discover::entries_of(roots) {
        let path = match found {
            Ok(path) => path,
            Err(e) => {
                unreachable.push(e);
                continue;
            }
        };
        let root = roots
            .iter()
            .filter(|root| path.starts_with(root))
            .max_by_key(|root| root.components().count());
        let rel = match root {
            Some(root) => relative(root, &path),
            None => relative(&path, &path),
        };
        if shard.is_none_or(|s| s.owns(&rel)) {
            out.push(path);
        }
    }
    out.sort();
    out.dedup();
    Targets {
        paths: out,
        unreachable,
    }
}

/// A skill's path relative to the folder it was found under, `/`-separated; the folder's
/// own name when the root is the skill itself.
fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let rel = if rel.as_os_str().is_empty() {
        let named = if path.is_file() {
            path.parent().unwrap_or(path)
        } else {
            path
        };
        named
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(PathBuf::from))
            .unwrap_or_default()
    } else {
        rel.to_owned()
    };
    display(&rel)
}

/// What every row is checked with.
pub struct Checker<'a> {
    /// Rule selection, severities, limits and frontmatter policy.
    pub settings: &'a lint::Settings,
    /// The policy of the static decision.
    pub policy: &'a VerdictPolicy,
    /// The repository, scanned once, when `--repo` was given.
    pub project: Option<&'a Project>,
}

impl Checker<'_> {
    /// Load, lint and decide one skill; a skill that cannot be read (or makes a rule fail)
    /// becomes a row with its error.
    pub fn row(&self, path: &Path) -> Row {
        match catch_unwind(AssertUnwindSafe(|| Skill::load(path))) {
            Ok(Ok(skill)) => match catch_unwind(AssertUnwindSafe(|| self.checked(&skill))) {
                Ok(row) => row,
                Err(_) => failed(
                    path,
                    format!(
                        "{}: internal error while checking this skill",
                        display(&skill.source.path)
                    ),
                ),
            },
            Ok(Err(e)) => failed(path, e.to_string()),
            Err(_) => failed(
                path,
                format!("{}: internal error while reading this skill", display(path)),
            ),
        }
    }

    fn checked(&self, skill: &Skill) -> Row {
        let review = lint::review(skill, self.settings, self.project);
        let verdict = verdict::decide(self.policy, &review.findings, None);
        let description = skill
            .frontmatter
            .description
            .as_ref()
            .map(|d| d.value.as_str());
        let body = &skill.source.text[skill.body.range.clone()];
        let mut row = Row {
            path: display(&skill.source.path),
            name: skill.name().map(str::to_owned),
            tokens: Some(skill.body.tokens),
            code_share: Some((skill.body.code_share() * 1000.0).round() / 1000.0),
            errors: 0,
            warnings: 0,
            infos: 0,
            security: 0,
            fit: review.fit.as_ref().map(RowFit::of),
            decision: Some(verdict.decision),
            error: None,
            description_tokens: description.map_or(0, tokens::count),
            fingerprint: Fingerprint::of(description, body),
            findings: review.findings.iter().map(FindingRecord::from).collect(),
        };
        row.recount();
        row
    }
}

/// The row of a skill that could not be checked.
fn failed(path: &Path, error: String) -> Row {
    let manifest = if path.is_dir() {
        path.join("SKILL.md")
    } else {
        path.to_owned()
    };
    Row {
        path: display(&manifest),
        name: None,
        tokens: None,
        code_share: None,
        errors: 0,
        warnings: 0,
        infos: 0,
        security: 0,
        fit: None,
        decision: None,
        error: Some(error),
        description_tokens: 0,
        fingerprint: Fingerprint::default(),
        findings: Vec::new(),
    }
}

/// Check every path on all cores; rows come back in the order of `paths`, whatever order
/// the threads finished in. Progress goes to stderr once the work has taken a second.
pub fn check_all(paths: &[PathBuf], checker: &Checker<'_>, progress: bool) -> Vec<Row> {
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(paths.len())
        .max(1);
    let progress = Progress::new(paths.len() as u64, progress);
    let next = AtomicUsize::new(0);
    let mut slots: Vec<Option<Row>> = vec![None; paths.len()];
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(path) = paths.get(i) else { break };
                        done.push((i, checker.row(path)));
                        progress.tick();
                    }
                    done
                })
            })
            .collect();
        for worker in workers {
            // A worker cannot panic (each skill is checked under catch_unwind); a lost
            // worker's skills are reported as rows below.
            if let Ok(done) = worker.join() {
                for (i, row) in done {
                    slots[i] = Some(row);
                }
            }
        }
    });
    progress.finish();
    slots
        .into_iter()
        .zip(paths)
        .map(|(slot, path)| {
            slot.unwrap_or_else(|| {
                failed(
                    path,
                    format!(
                        "{}: internal error while checking this skill",
                        display(path)
                    ),
                )
            })
        })
        .collect()
}

/// A progress bar on stderr that appears only when the work takes more than a second (and
/// stderr is a terminal).
struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: AtomicBool,
    enabled: bool,
}

impl Progress {
    fn new(len: u64, enabled: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} skills, {elapsed} ({eta} left)")
        {
            bar.set_style(style);
        }
        Progress {
            bar,
            start: Instant::now(),
            shown: AtomicBool::new(false),
            enabled,
        }
    }

    fn tick(&self) {
        self.bar.inc(1);
        if self.enabled
            && self.start.elapsed() > Duration::from_secs(1)
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

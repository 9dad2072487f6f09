//! `skillgate merge RUN_DIR...` for evaluations: the run directories of every shard of one
//! split (`eval --shard K/N`) joined into one run directory, which `report` reads as if one
//! machine had run every cell.
//!
//! The shards must be one split of one run: the same options (apart from the shard, the run
//! directory and how the machine ran them), the same skill and control bodies, and every share
//! from 1 to N exactly once. Each cell belongs to one shard, so the journals are joined in
//! shard order, their logs copied side by side, and `run.json` says what was merged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::EvalError;
use super::journal::{self, CELLS_FILE, RunInfo};
use super::runner::{cell_shard_key, model_shard_key};
use crate::shard::Shard;

/// Why run directories cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A run directory was not made with `--shard`.
    #[error("{}: not a shard (it was run without --shard)", .0.display())]
    NotAShard(PathBuf),
    /// Two directories hold the same share.
    #[error("{} and {} are both shard {shard}", .first.display(), .second.display())]
    SameShard {
        /// The share.
        shard: Shard,
        /// The first directory holding it.
        first: PathBuf,
        /// The second.
        second: PathBuf,
    },
    /// The directories were split into different numbers of shares.
    #[error("{} is one of {found} shards, but {} is one of {expected}", .dir.display(), .first.display())]
    Split {
        /// The directory that disagrees.
        dir: PathBuf,
        /// Its number of shares.
        found: u32,
        /// The first directory.
        first: PathBuf,
        /// The first directory's number of shares.
        expected: u32,
    },
    /// Shares are missing.
    #[error("shards {missing} of {count} are missing")]
    Missing {
        /// The missing shares, as `2, 4`.
        missing: String,
        /// The number of shares.
        count: u32,
    },
    /// A shard was run with other options than the first one.
    #[error("{} was run with other options than {}: {what} differs", .dir.display(), .first.display())]
    Options {
        /// The directory that differs.
        dir: PathBuf,
        /// The first directory.
        first: PathBuf,
        /// What differs.
        what: &'static str,
    },
    /// A shard has not finished.
    #[error("{}: the shard has not finished (resume it with skillgate eval --resume {})", .0.display(), .0.display())]
    Unfinished(PathBuf),
    /// A journal holds a cell of another shard.
    #[error("{}: cell {cell} belongs to another shard", .dir.display())]
    Foreign {
        /// The directory.
        dir: PathBuf,
        /// The cell's `task/condition/seed`.
        cell: String,
    },
    /// The output directory already holds a run.
    #[error("{}: already holds a run; merge into a new folder", .0.display())]
    OutExists(PathBuf),
}

/// One shard's run directory, read.
struct Part {
    dir: PathBuf,
    info: RunInfo,
    shard: Shard,
}

/// Joins the shards' run directories `dirs` into the new run directory `out`; returns the
/// merged run's record.
pub fn merge_runs(dirs: &[PathBuf], out: &Path) -> Result<RunInfo, EvalError> {
    let parts = read_parts(dirs)?;
    let first = &parts[0];
    for part in &parts[1..] {
        if let Some(what) = differs(&first.info, &part.info) {
            return Err(MergeError::Options {
                dir: part.dir.clone(),
                first: first.dir.clone(),
                what,
            }
            .into());
        }
    }
    if out.join(journal::RUN_FILE).exists() {
        return Err(MergeError::OutExists(out.to_path_buf()).into());
    }
    std::fs::create_dir_all(out).map_err(|e| EvalError::io("creating", out, e))?;

    let mut cells = Vec::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for part in &parts {
        let path = part.dir.join(CELLS_FILE);
        let text = std::fs::read(&path).map_err(|e| EvalError::io("reading", &path, e))?;
        for cell in journal::read_cells(&path)? {
            let key = if part.info.config.models.is_empty() {
                cell_shard_key(&cell.task, cell.condition, cell.seed)
            } else {
                model_shard_key(&cell.model, &cell.task, cell.condition, cell.seed)
            };
            if !part.shard.owns(&key) {
                return Err(MergeError::Foreign {
                    dir: part.dir.clone(),
                    cell: key,
                }
                .into());
            }
        }
        cells.extend_from_slice(&text);
        for (name, n) in &part.info.cells {
            *counts.entry(name.clone()).or_default() += n;
        }
        copy_tree(&part.dir.join("logs"), &out.join("logs"))?;
    }
    let path = out.join(CELLS_FILE);
    std::fs::write(&path, cells).map_err(|e| EvalError::io("writing", &path, e))?;

    let mut info = first.info.clone();
    info.config.shard = None;
    info.config.out = out.to_path_buf();
    info.command = std::env::args().collect();
    info.cells = counts;
    info.started_at = parts
        .iter()
        .map(|p| p.info.started_at.clone())
        .min()
        .unwrap_or_default();
    info.finished_at = parts
        .iter()
        .filter_map(|p| p.info.finished_at.clone())
        .max();
    info.resumed = Vec::new();
    let mut refused: Vec<_> = parts
        .iter()
        .flat_map(|p| p.info.tasks_refused.iter().cloned())
        .collect();
    refused.sort_by(|a, b| a.task.cmp(&b.task));
    refused.dedup_by(|a, b| a.task == b.task);
    info.tasks_refused = refused;
    journal::write_run_info(out, &info)?;
    Ok(info)
}

/// Every directory's record, in shard order, checked to be one whole split.
fn read_parts(dirs: &[PathBuf]) -> Result<Vec<Part>, EvalError> {
    let mut parts: Vec<Part> = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let info = journal::read_run_info(dir)?;
        let shard = info
            .config
            .shard
            .ok_or_else(|| MergeError::NotAShard(dir.clone()))?;
        if info.finished_at.is_none() {
            return Err(MergeError::Unfinished(dir.clone()).into());
        }
        if let Some(other) = parts.iter().find(|p| p.shard == shard) {
            return Err(MergeError::SameShard {
                shard,
                first: other.dir.clone(),
                second: dir.clone(),
            }
            .into());
        }
        if let Some(first) = parts.first().filter(|p| p.shard.count != shard.count) {
            return Err(MergeError::Split {
                dir: dir.clone(),
                found: shard.count,
                first: first.dir.clone(),
                expected: first.shard.count,
            }
            .into());
        }
        parts.push(Part {
            dir: dir.clone(),
            info,
            shard,
        });
    }
    parts.sort_by_key(|p| p.shard.index);
    let count = parts.first().map_or(1, |p| p.shard.count);
    let missing: Vec<String> = (1..=count)
        .filter(|k| !parts.iter().any(|p| p.shard.index == *k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(MergeError::Missing {
            missing: missing.join(", "),
            count,
        }
        .into());
    }
    Ok(parts)
}

/// What makes two shards' runs not one split, if anything: every option that decides which
/// cells exist or how they were measured must agree. Paths may differ (each job of a matrix
/// has its own checkout); the skill is compared by its measured bodies, and each cell
/// carries the hashes of its skill and task.
fn differs(a: &RunInfo, b: &RunInfo) -> Option<&'static str> {
    let (x, y) = (&a.config, &b.config);
    let checks: [(&'static str, bool); 13] = [
        ("the skill's body", a.skill_body == b.skill_body),
        ("the control body", a.control_body == b.control_body),
        (
            "the agent",
            x.agent == y.agent && x.agent_cmd == y.agent_cmd,
        ),
        ("the model", x.model == y.model && x.models == y.models),
        ("the seeds", x.seeds == y.seeds),
        ("the attempts", x.attempts == y.attempts),
        ("the conditions", x.conditions == y.conditions),
        ("the placement", x.placement == y.placement),
        ("the backend", x.backend == y.backend),
        ("the retries", x.retries == y.retries),
        (
            "the verifier's network",
            x.verifier_offline == y.verifier_offline,
        ),
        (
            "whether storage limits are required",
            x.require_storage_limits == y.require_storage_limits,
        ),
        (
            "the versions (skillgate, backend, agent)",
            a.versions == b.versions,
        ),
    ];
    checks.iter().find(|(_, same)| !same).map(|(what, _)| *what)
}

/// Copies every file below `from` to the same place below `to` (nothing when `from` is
/// absent).
fn copy_tree(from: &Path, to: &Path) -> Result<(), EvalError> {
    if !from.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(to).map_err(|e| EvalError::io("creating", to, e))?;
    let entries = std::fs::read_dir(from).map_err(|e| EvalError::io("reading", from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| EvalError::io("reading", from, e))?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry
            .file_type()
            .map_err(|e| EvalError::io("reading", &source, e))?;
        if kind.is_dir() {
            copy_tree(&source, &target)?;
        } else if kind.is_file() {
            std::fs::copy(&source, &target).map_err(|e| EvalError::io("copying", &source, e))?;
        }
    }
    Ok(())
}

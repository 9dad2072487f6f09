//! Tasks in the Harbor/SkillsBench layout, and the checks `skillgate tasks check` runs.
//!
//! ```text
//! <task>/task.toml          [metadata] [agent] [verifier] [environment]
//! <task>/instruction.md     what the agent is asked to do; never names the skill
//! <task>/tests/test.sh      pass = exit 0, or reward 1 in /logs/verifier/reward.txt
//! <task>/solution/solve.sh  optional oracle
//! <task>/environment/       optional Dockerfile (built when no docker_image is given)
//! ```

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::eval::EvalError;
use crate::eval::condition::SkillParts;

/// Agent time limit when `task.toml` gives none (Harbor's default).
pub const DEFAULT_AGENT_TIMEOUT_SEC: f64 = 600.0;
/// Verifier time limit when `task.toml` gives none.
pub const DEFAULT_VERIFIER_TIMEOUT_SEC: f64 = 120.0;
/// Length of the word runs compared when looking for a quoted skill in an instruction.
const QUOTE_WORDS: usize = 8;

/// `task.toml`. Unknown tables and keys are kept so tasks written for other runners load
/// unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskConfig {
    /// Free-form metadata (author, difficulty, tags...).
    #[serde(default)]
    pub metadata: toml::Table,
    /// The agent phase.
    #[serde(default)]
    pub agent: PhaseConfig,
    /// The verifier phase.
    #[serde(default)]
    pub verifier: PhaseConfig,
    /// The sandbox the task runs in.
    #[serde(default)]
    pub environment: EnvironmentConfig,
    /// Anything else (`version`, runner-specific tables).
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// `[agent]` or `[verifier]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PhaseConfig {
    /// Wall-clock limit in seconds.
    pub timeout_sec: Option<f64>,
    /// Unknown keys, kept.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// `[environment]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EnvironmentConfig {
    /// A ready image; without it `environment/Dockerfile` is built.
    pub docker_image: Option<String>,
    /// CPU limit (cores).
    pub cpus: Option<f64>,
    /// Memory limit in MiB.
    pub memory_mb: Option<u64>,
    /// Whether the agent phase may reach the network (the verifier never does).
    pub allow_internet: Option<bool>,
    /// Unknown keys (`build_timeout_sec`, `storage_mb`...), kept.
    #[serde(flatten)]
    pub extra: toml::Table,
}

/// One loaded task.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The task id: its directory name.
    pub id: String,
    /// The task directory.
    pub dir: PathBuf,
    /// The parsed `task.toml`.
    pub config: TaskConfig,
    /// The text of `instruction.md`.
    pub instruction: String,
    /// sha256 over every file of the task (paths and contents).
    pub sha256: String,
}

impl Task {
    /// Loads the task in `dir`.
    pub fn load(dir: &Path) -> Result<Task, EvalError> {
        let id = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        let bad = |message: String| EvalError::Task {
            task: id.clone(),
            message,
        };
        let toml_path = dir.join("task.toml");
        let text = read_text(&toml_path)?;
        let config: TaskConfig =
            toml::from_str(&text).map_err(|e| bad(format!("task.toml: {}", e.message())))?;
        let instruction = read_text(&dir.join("instruction.md"))?;
        let sha256 = tree_sha256(dir)?;
        Ok(Task {
            id,
            dir: dir.to_owned(),
            config,
            instruction,
            sha256,
        })
    }

    /// Loads every task under `dir` (or `dir` itself when it is one task), sorted by id.
    pub fn load_all(dir: &Path) -> Result<Vec<Task>, EvalError> {
        if dir.join("task.toml").is_file() {
            return Ok(vec![Task::load(dir)?]);
        }
        let entries = std::fs::read_dir(dir).map_err(|e| EvalError::io("reading", dir, e))?;
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("task.toml").is_file())
            .collect();
        dirs.sort();
        if dirs.is_empty() {
            return Err(EvalError::NoTasks(dir.to_owned()));
        }
        dirs.iter().map(|d| Task::load(d)).collect()
    }

    /// The agent's time limit.
    pub fn agent_timeout(&self) -> std::time::Duration {
        seconds(
            self.config
                .agent
                .timeout_sec
                .unwrap_or(DEFAULT_AGENT_TIMEOUT_SEC),
        )
    }

    /// The verifier's time limit.
    pub fn verifier_timeout(&self) -> std::time::Duration {
        seconds(
            self.config
                .verifier
                .timeout_sec
                .unwrap_or(DEFAULT_VERIFIER_TIMEOUT_SEC),
        )
    }

    /// The commit the task starts from (`[metadata] base_commit`), when it names one: its
    /// workspace is `--repo` at that commit instead of the repository's current state.
    pub fn base_commit(&self) -> Option<&str> {
        self.config
            .metadata
            .get(crate::eval::base::BASE_COMMIT_KEY)
            .and_then(toml::Value::as_str)
            .map(str::trim)
            .filter(|c| !c.is_empty())
    }

    /// `tests/`, copied in only after the agent stops.
    pub fn tests_dir(&self) -> PathBuf {
        self.dir.join("tests")
    }

    /// `solution/`, when the task ships an oracle.
    pub fn solution_dir(&self) -> Option<PathBuf> {
        let dir = self.dir.join("solution");
        dir.join("solve.sh").is_file().then_some(dir)
    }

    /// `environment/Dockerfile`, when the task is built rather than pulled.
    pub fn dockerfile_dir(&self) -> Option<PathBuf> {
        let dir = self.dir.join("environment");
        dir.join("Dockerfile").is_file().then_some(dir)
    }

    /// Problems that make the task unusable, without running anything. With a skill, an
    /// instruction that names or quotes it is refused: the agent must earn the skill's help.
    pub fn problems(&self, skill: Option<&SkillParts>) -> Vec<String> {
        let mut problems = Vec::new();
        if self.instruction.trim().is_empty() {
            problems.push("instruction.md is empty".to_owned());
        }
        if !self.tests_dir().join("test.sh").is_file() {
            problems.push("tests/test.sh is missing".to_owned());
        }
        for (phase, timeout) in [
            ("agent", self.config.agent.timeout_sec),
            ("verifier", self.config.verifier.timeout_sec),
        ] {
            if timeout.is_some_and(|t| !(t.is_finite() && t > 0.0)) {
                problems.push(format!("[{phase}] timeout_sec must be a positive number"));
            }
        }
        if self.config.environment.docker_image.is_some() && self.dockerfile_dir().is_some() {
            problems.push(
                "both [environment] docker_image and environment/Dockerfile are given".to_owned(),
            );
        }
        if let Some(skill) = skill {
            problems.extend(self.leaks(skill));
        }
        problems
    }

    /// Whether the instruction names the skill or quotes a run of its body.
    fn leaks(&self, skill: &SkillParts) -> Vec<String> {
        let mut found = Vec::new();
        let instruction = words(&self.instruction);
        let name = words(&skill.name);
        if !name.is_empty()
            && instruction
                .windows(name.len())
                .any(|w| w == name.as_slice())
        {
            found.push(format!("instruction names the skill `{}`", skill.name));
        }
        let body = words(&skill.body);
        if let Some(quote) = body
            .windows(QUOTE_WORDS)
            .find(|run| instruction.windows(QUOTE_WORDS).any(|w| w == *run))
        {
            found.push(format!(
                "instruction quotes the skill: \"{}\"",
                quote.join(" ")
            ));
        }
        found
    }
}

/// Lower-cased words (letters and digits), so punctuation and case do not hide a quote.
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn seconds(s: f64) -> std::time::Duration {
    std::time::Duration::try_from_secs_f64(s).unwrap_or(std::time::Duration::from_secs(1))
}

fn read_text(path: &Path) -> Result<String, EvalError> {
    std::fs::read_to_string(path).map_err(|e| EvalError::io("reading", path, e))
}

/// sha256 over the relative paths and contents of every file under `dir`, in path order.
/// Symbolic links are hashed by their target, never followed out of the tree.
pub fn tree_sha256(dir: &Path) -> Result<String, EvalError> {
    let mut files = Vec::new();
    collect_files(dir, dir, &mut files)?;
    files.sort();
    let mut all = Vec::new();
    for rel in files {
        let path = dir.join(&rel);
        let meta =
            std::fs::symlink_metadata(&path).map_err(|e| EvalError::io("reading", &path, e))?;
        let contents = if meta.file_type().is_symlink() {
            std::fs::read_link(&path)
                .map_err(|e| EvalError::io("reading", &path, e))?
                .to_string_lossy()
                .into_owned()
                .into_bytes()
        } else {
            std::fs::read(&path).map_err(|e| EvalError::io("reading", &path, e))?
        };
        all.extend_from_slice(rel.as_bytes());
        all.push(0);
        all.extend_from_slice(crate::eval::sha256_hex(&contents).as_bytes());
        all.push(b'\n');
    }
    Ok(crate::eval::sha256_hex(&all))
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<(), EvalError> {
    let entries = std::fs::read_dir(dir).map_err(|e| EvalError::io("reading", dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| EvalError::io("reading", dir, e))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| EvalError::io("reading", &path, e))?;
        if kind.is_dir() {
            collect_files(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task_in(dir: &Path, toml: &str, instruction: &str) -> Task {
        std::fs::create_dir_all(dir.join("tests")).unwrap();
        std::fs::write(dir.join("task.toml"), toml).unwrap();
        std::fs::write(dir.join("instruction.md"), instruction).unwrap();
        std::fs::write(dir.join("tests/test.sh"), "exit 0\n").unwrap();
        Task::load(dir).unwrap()
    }

    #[test]
    fn unknown_fields_are_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let toml = "version = \"1.0\"\n[metadata]\ndifficulty = \"easy\"\n[agent]\ntimeout_sec = 30.0\n\
                    [verifier]\ntimeout_sec = 5\nretries = 2\n[environment]\ncpus = 1\nmemory_mb = 512\nstorage_mb = 100\n[harbor]\nx = 1\n";
        let task = task_in(tmp.path(), toml, "Do it.\n");
        assert_eq!(task.config.agent.timeout_sec, Some(30.0));
        assert_eq!(task.config.verifier.timeout_sec, Some(5.0));
        assert_eq!(task.config.verifier.extra["retries"].as_integer(), Some(2));
        assert_eq!(
            task.config.environment.extra["storage_mb"].as_integer(),
            Some(100)
        );
        assert!(task.config.extra.contains_key("harbor"));
        assert!(task.config.extra.contains_key("version"));
        assert_eq!(task.agent_timeout().as_secs(), 30);
        assert!(task.problems(None).is_empty());
    }

    #[test]
    fn instructions_that_name_or_quote_the_skill_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let skill = SkillParts {
            name: "release-notes".into(),
            dir: tmp.path().into(),
            frontmatter: String::new(),
            body: "Always group the changes by component and list breaking changes first in the notes.\n".into(),
            code_blocks: vec![],
            prohibitions: vec![],
        };
        let named = task_in(&tmp.path().join("a"), "", "Use the Release Notes skill.\n");
        assert!(named.problems(Some(&skill))[0].contains("names the skill"));
        let quoted = task_in(
            &tmp.path().join("b"),
            "",
            "Please: group the changes by component, and list breaking changes first!\n",
        );
        assert!(quoted.problems(Some(&skill))[0].contains("quotes the skill"));
        let clean = task_in(&tmp.path().join("c"), "", "Write notes for version 2.\n");
        assert!(clean.problems(Some(&skill)).is_empty());
    }

    #[test]
    fn task_hash_changes_with_any_file() {
        let tmp = tempfile::tempdir().unwrap();
        let before = task_in(tmp.path(), "", "Do it.\n").sha256;
        std::fs::write(tmp.path().join("tests/test.sh"), "exit 1\n").unwrap();
        assert_ne!(before, Task::load(tmp.path()).unwrap().sha256);
    }
}

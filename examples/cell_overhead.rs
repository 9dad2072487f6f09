//! Per-cell overhead of the sandboxes: an agent that exits at once, a verifier that does
//! nothing, and everything skillgate does around them (workspace copy or container,
//! uploads, execs, journal). Prints ms per cell for `-j 1` and `-j 2` on each backend.
//!
//! Run: `cargo run --release --example cell_overhead [local|docker] [CELLS]`. The docker
//! backend needs the `skillgate-test-busybox:1` image, which the integration tests build.

use std::path::PathBuf;
use std::time::Instant;

use skillgate::eval::Backend;
use skillgate::eval::agent::AgentKind;
use skillgate::eval::{Condition, EvalOptions, Placement, SkillParts, evaluate};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let backends: Vec<Backend> = match args.get(1).map(String::as_str) {
        Some("local") => vec![Backend::Local],
        Some("docker") => vec![Backend::Docker],
        _ => vec![Backend::Local, Backend::Docker],
    };
    let cells: u32 = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(20);
    for backend in backends {
        for jobs in [1, 2] {
            match measure(backend, jobs, cells) {
                Ok(ms) => println!(
                    "{backend:?} -j {jobs}: {cells} cells, {ms:.1} ms per cell (wall / cells)"
                ),
                Err(e) => {
                    eprintln!("{backend:?}: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
}

/// A task whose verifier exits at once, so only skillgate's own work is measured.
fn trivial_task(dir: &std::path::Path) -> Result<PathBuf, skillgate::eval::EvalError> {
    let task = dir.join("tasks/noop");
    let write = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().unwrap_or(dir))
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| skillgate::eval::EvalError::io("writing", path, e))
    };
    write(
        task.join("task.toml"),
        "[agent]\ntimeout_sec = 30.0\n[verifier]\ntimeout_sec = 30.0\n[environment]\ndocker_image = \"skillgate-test-busybox:1\"\nallow_internet = false\n",
    )?;
    write(task.join("instruction.md"), "Do nothing.\n")?;
    write(task.join("tests/test.sh"), "exit 1\n")?;
    Ok(task)
}

fn measure(backend: Backend, jobs: usize, cells: u32) -> Result<f64, skillgate::eval::EvalError> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let scratch = tempfile::tempdir()
        .map_err(|e| skillgate::eval::EvalError::io("creating", "temp dir", e))?;
    let options = EvalOptions {
        skill: root.join("fixtures/skills/inventory-conventions/SKILL.md"),
        repo: root.join("fixtures/repos/inventory"),
        tasks: trivial_task(scratch.path())?,
        agent: AgentKind::Command,
        agent_cmd: Some("true".into()),
        model: None,
        models: Vec::new(),
        seeds: cells,
        attempts: 1,
        conditions: vec![Condition::C0],
        placement: Placement::Discover,
        backend,
        jobs,
        out: scratch.path().join("run"),
        resume: false,
        retries: 0,
        worktree: true,
        cache_dir: None,
        pass_env: Vec::new(),
        install: None,
        quiet: true,
        verifier_offline: false,
        require_storage_limits: false,
        build: false,
        shard: None,
    };
    let skill = SkillParts {
        name: "overhead".into(),
        dir: scratch.path().join("no-skill-folder"),
        frontmatter: "---\nname: overhead\ndescription: none\n---\n".into(),
        body: "Nothing to see.\n".into(),
        code_blocks: Vec::new(),
        prohibitions: Vec::new(),
    };
    let started = Instant::now();
    let summary = evaluate(&options, skill)?;
    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(summary.ran as u32, cells);
    // The verifier fails every cell on purpose; an error or time-out would end a cell early
    // and make the figure meaningless.
    let judged = summary.outcomes.get("fail").copied().unwrap_or(0);
    assert_eq!(
        judged as u32, cells,
        "{judged} of {cells} cells ran the whole protocol: {:?}",
        summary.outcomes
    );
    Ok(elapsed / f64::from(cells))
}

//! `cargo bench --bench check_repo [-- FILES]`: one skill against a generated mid-size
//! repository (default 5,000 source files in nested folders, a vendored `node_modules` the
//! scan must skip, and a `package-lock.json` with 2,000 packages).
//!
//! Prints the scan time, the first review of the skill (which reads the alias table and the
//! API files of the project's packages and builds their matcher), and the median of later
//! reviews; then a whole one-skill `skillgate check --repo` process against a bundled
//! repository. Budgets: the review stays in milliseconds; the scan of this size well under a
//! second; the one-skill process under 10 ms, start-up included.

use std::fmt::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use skillgate::lint::{self, Settings};
use skillgate::project;
use skillgate::skill::Skill;

fn main() -> std::io::Result<()> {
    let files: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(5_000);
    let dir = tempfile::tempdir()?;
    generate(dir.path(), files)?;

    let t = Instant::now();
    let Ok(project) = project::scan(dir.path()) else {
        println!("check_repo: the generated repository did not scan");
        return Ok(());
    };
    let scan = t.elapsed();

    let skill_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("skills/react-upgrade");
    let Ok(skill) = Skill::load(&skill_path) else {
        println!("check_repo: skills/react-upgrade did not load");
        return Ok(());
    };
    skillgate::skill::tokens::count("warm up");
    let settings = Settings::default();
    let t = Instant::now();
    let first = lint::review(&skill, &settings, Some(&project));
    let first_time = t.elapsed();
    let mut times: Vec<Duration> = (0..50)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(lint::review(&skill, &settings, Some(&project)));
            t.elapsed()
        })
        .collect();
    times.sort();
    println!(
        "check_repo: {files} source files, {} dependencies; scan {:.1} ms; first review {:.2} ms ({} findings); median review {:.2} ms",
        project.dependencies.len(),
        ms(scan),
        ms(first_time),
        first.findings.len(),
        ms(times[times.len() / 2]),
    );
    one_skill_process();
    Ok(())
}

/// The budget of a one-skill check with `--repo`, start-up included.
const ONE_SKILL_BUDGET_MS: f64 = 10.0;

/// A whole `skillgate check` process on one bundled skill against a bundled repository, as a
/// user runs it: the median wall time of 20 runs after one warm-up.
fn one_skill_process() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = || {
        let t = Instant::now();
        let status = std::process::Command::new(env!("CARGO_BIN_EXE_skillgate"))
            .current_dir(root)
            .args([
                "check",
                "skills/react-upgrade",
                "--repo",
                "fixtures/repos/webapp",
            ])
            .args(["--fail-on", "never"])
            .stdout(std::process::Stdio::null())
            .status();
        status.ok().filter(|s| s.success()).map(|_| t.elapsed())
    };
    let _ = run();
    let mut times: Vec<Duration> = (0..20).filter_map(|_| run()).collect();
    if times.is_empty() {
        println!("check_repo: the skillgate binary did not run");
        return;
    }
    times.sort();
    let median = ms(times[times.len() / 2]);
    println!(
        "check_repo: one-skill process `skillgate check skills/react-upgrade --repo fixtures/repos/webapp`: median {median:.1} ms wall over {} runs (budget {ONE_SKILL_BUDGET_MS} ms: {})",
        times.len(),
        if median <= ONE_SKILL_BUDGET_MS {
            "met"
        } else {
            "missed"
        }
    );
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A React 19 app with `files` components, a vendored folder and a large lockfile.
fn generate(root: &Path, files: usize) -> std::io::Result<()> {
    std::fs::write(
        root.join("package.json"),
        r#"{ "name": "big", "packageManager": "pnpm@9.12.0",
  "dependencies": { "react": "^19.0.0", "react-dom": "^19.0.0" },
  "devDependencies": { "vitest": "^2.1.0", "vite": "^6.0.0" } }"#,
    )?;
    let mut lock = String::from(
        "{\n  \"name\": \"big\",\n  \"lockfileVersion\": 3,\n  \"packages\": {\n    \"\": { \"name\": \"big\" },\n",
    );
    let _ = writeln!(
        lock,
        "    \"node_modules/react\": {{ \"version\": \"19.0.0\" }},\n    \"node_modules/react-dom\": {{ \"version\": \"19.0.0\" }},"
    );
    for i in 0..2_000 {
        let _ = writeln!(
            lock,
            "    \"node_modules/pkg-{i}\": {{ \"version\": \"1.{}.{}\" }},",
            i % 40,
            i % 7
        );
    }
    lock.push_str("    \"node_modules/last\": { \"version\": \"1.0.0\" }\n  }\n}\n");
    std::fs::write(root.join("package-lock.json"), lock)?;
    for i in 0..files {
        let dir = root.join(format!("src/feature{}/part{}", i % 50, i % 7));
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join(format!("Component{i}.jsx")),
            "export default () => null;\n",
        )?;
    }
    let vendored = root.join("node_modules/dep");
    std::fs::create_dir_all(&vendored)?;
    for i in 0..500 {
        std::fs::write(vendored.join(format!("f{i}.js")), "module.exports = 1;\n")?;
    }
    Ok(())
}

//! `cargo bench --bench check_folder [-- DIR]`: lint every skill under DIR (default: the
//! shared corpus at ../shared/corpus/skills, when present) and print the median time per
//! skill, the peak memory, and, when the `agnix` linter is installed (`pip install agnix`),
//! the ratio of skillgate's wall time to agnix's on the same folder in the same run (agnix's
//! own binary, found past a pyenv shim as `cargo bench --bench audit` finds it, or `AGNIX`).
//!
//! Budgets: median under 5 ms per skill, the folder faster than agnix (ratio <= 1.0), peak
//! RSS under 64 MB.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use skillgate::lint::{self, Settings};

#[path = "support/peer.rs"]
mod peer;
use skillgate::skill::Skill;

fn main() {
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/skills"));
    if !dir.is_dir() {
        println!(
            "check_folder: {} is not present; pass a folder of skills: cargo bench --bench check_folder -- DIR",
            dir.display()
        );
        return;
    }
    let skills = find_skills(&dir);
    println!(
        "check_folder: {} skills under {}",
        skills.len(),
        dir.display()
    );

    // In-process: what one skill costs once the vocabulary is loaded.
    let start = Instant::now();
    skillgate::skill::tokens::count("warm up");
    let vocabulary = start.elapsed();
    let settings = Settings::default();
    let mut times = Vec::with_capacity(skills.len());
    let mut unreadable = Vec::new();
    for round in 0..5 {
        for path in &skills {
            let t = Instant::now();
            match Skill::load(path) {
                Ok(skill) => {
                    std::hint::black_box(lint::check(&skill, &settings, None));
                }
                Err(e) if round == 0 => unreadable.push(e.to_string()),
                Err(_) => {}
            }
            times.push(t.elapsed());
        }
    }
    // Every real skill must be readable: an input error here is a bug to fix, not noise.
    println!("input errors (exit 2): {}", unreadable.len());
    for e in &unreadable {
        println!("  {e}");
    }
    times.sort();
    let median = times[times.len() / 2];
    let p90 = times[times.len() * 9 / 10];
    println!(
        "in-process: vocabulary load {}, median {} per skill, p90 {}",
        ms(vocabulary),
        ms(median),
        ms(p90)
    );
    println!(
        "in-process: peak RSS {} MB",
        peak_rss_kb().map_or("n/a".into(), |kb| format!("{:.1}", kb as f64 / 1024.0))
    );

    // Whole folder through the binary, as a user runs it.
    let bin = env!("CARGO_BIN_EXE_skillgate");
    let mut ours = Command::new(bin);
    ours.arg("check")
        .args(&skills)
        .args(["--format", "json", "--fail-on", "never"]);
    let (ours_wall, ours_rss) = timed(ours, 5);
    println!(
        "skillgate check <{} skills>: {} wall (best of 5), peak RSS {}",
        skills.len(),
        ms(ours_wall),
        rss(ours_rss)
    );

    match peer::agnix() {
        Some(agnix) => {
            let mut theirs = Command::new(agnix);
            theirs.arg(&dir);
            let (agnix_wall, agnix_rss) = timed(theirs, 5);
            println!(
                "agnix {}: {} wall (best of 5), peak RSS {}",
                dir.display(),
                ms(agnix_wall),
                rss(agnix_rss)
            );
            println!(
                "ratio skillgate/agnix: {:.2}",
                ours_wall.as_secs_f64() / agnix_wall.as_secs_f64()
            );
        }
        None => println!("agnix: not installed (pip install agnix), no ratio"),
    }
}

/// Every SKILL.md below `dir`, sorted.
fn find_skills(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.file_name().is_some_and(|n| n == "SKILL.md") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Best wall time of `runs` runs, and the peak RSS in KB of the last (via /usr/bin/time).
fn timed(mut cmd: Command, runs: usize) -> (Duration, Option<u64>) {
    cmd.stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    let mut best = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let _ = cmd.status();
        best = best.min(t.elapsed());
    }
    let rss = Path::new("/usr/bin/time").exists().then(|| {
        let out = Command::new("/usr/bin/time")
            .arg("-f")
            .arg("%M")
            .arg(cmd.get_program())
            .args(cmd.get_args())
            .stdout(std::process::Stdio::null())
            .output()
            .ok()?;
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()?
            .trim()
            .parse()
            .ok()
    });
    (best, rss.flatten())
}

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn rss(kb: Option<u64>) -> String {
    kb.map_or_else(
        || "n/a (no /usr/bin/time)".to_owned(),
        |kb| format!("{:.1} MB", kb as f64 / 1024.0),
    )
}

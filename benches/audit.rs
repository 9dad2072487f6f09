//! `cargo bench --bench audit [-- DIR]`: time `skillgate audit` as a user runs it (the
//! release binary, every core) on a folder of real skills (default: the shared corpus at
//! ../shared/corpus/skills, when present) and on a generated set of 10,000 skills, and print
//! wall time and peak RSS.
//!
//! When `agnix` (`pip install agnix`) and the Cisco AI skill scanner (`pip install
//! cisco-ai-skill-scanner`, its static analysers only) are installed, they run on the same
//! real folder in the same run and the ratios are printed.
//!
//! Last, `skillgate check` of one generated skill with 1 MB of reference files.
//!
//! Budgets: the real folder in at most 0.7x agnix's wall time and at least 100x faster than
//! the Cisco scanner's static mode; 10,000 generated skills in under 10 s and 256 MB; the
//! skill with 1 MB of references in under 25 ms.

#[allow(dead_code)]
#[path = "../tests/it/packs.rs"]
mod packs;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Generated skills in the large set.
const GENERATED: usize = 10_000;
/// Words per generated body: about the size of a typical public skill.
const WORDS: usize = 400;
/// Bytes of reference files of the one large skill.
const REFERENCE_BYTES: usize = 1024 * 1024;

fn main() {
    let bin = env!("CARGO_BIN_EXE_skillgate");
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/skills"));

    if dir.is_dir() {
        real_folder(bin, &dir);
    } else {
        println!(
            "audit: {} is not present, so no real folder and no comparison with other tools; pass one: cargo bench --bench audit -- DIR",
            dir.display()
        );
    }

    let set = tempfile::tempdir().expect("temporary folder");
    let made = packs::generate(set.path(), GENERATED, WORDS);
    let mut ours = Command::new(bin);
    ours.arg("audit")
        .arg(set.path())
        .args(["--format", "jsonl", "--fail-on", "never"]);
    let cost = timed(ours, 3);
    let wall = cost.wall;
    println!(
        "skillgate audit <{} generated skills, {} words each>: {} [budget 10 s, 256 MB: {}]",
        made.skills,
        WORDS,
        cost.describe(3),
        if wall < Duration::from_secs(10) && cost.rss.is_some_and(|kb| kb < 256 * 1024) {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "  {:.0} skills per second",
        made.skills as f64 / wall.as_secs_f64()
    );
    drop(set);

    large_references(bin);
}

/// Check one skill whose references hold 1 MB of markdown.
fn large_references(bin: &str) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let skill = with_references(dir.path(), REFERENCE_BYTES);
    let mut check = Command::new(bin);
    check
        .arg("check")
        .arg(&skill)
        .args(["--format", "json", "--fail-on", "never"]);
    let cost = timed(check, 10);
    println!(
        "skillgate check <one skill, {} KB of references>: {} [budget 25 ms: {}]",
        REFERENCE_BYTES / 1024,
        cost.describe(10),
        if cost.wall < Duration::from_millis(25) {
            "met"
        } else {
            "NOT met"
        }
    );
}

/// Audit a folder of real skills, and compare with the other tools when they are installed.
fn real_folder(bin: &str, dir: &Path) {
    let mut ours = Command::new(bin);
    ours.arg("audit")
        .arg(dir)
        .args(["--format", "jsonl", "--fail-on", "never"]);
    let ours = timed(ours, 5);
    let wall = ours.wall;
    println!("skillgate audit {}: {}", dir.display(), ours.describe(5));

    match which("agnix") {
        Some(agnix) => {
            let mut theirs = Command::new(agnix);
            theirs.arg(dir);
            let agnix = timed(theirs, 5);
            println!("agnix {}: {}", dir.display(), agnix.describe(5));
            let ratio = wall.as_secs_f64() / agnix.wall.as_secs_f64();
            println!(
                "  ratio skillgate/agnix: {ratio:.2} [budget <= 0.70: {}]",
                if ratio <= 0.7 { "met" } else { "NOT met" }
            );
            if let (Some(a), Some(b)) = (ours.cpu, agnix.cpu) {
                println!(
                    "  by CPU time: {:.2}",
                    a.as_secs_f64() / b.as_secs_f64().max(1e-3)
                );
            }
        }
        None => println!("agnix: not installed (pip install agnix), no ratio"),
    }

    match which("skill-scanner") {
        Some(scanner) => {
            let mut theirs = Command::new(scanner);
            theirs.arg("scan-all").arg(dir).arg("--recursive");
            let cisco = timed(theirs, 1);
            println!(
                "skill-scanner scan-all {} --recursive (static analysers only): {}",
                dir.display(),
                cisco.describe(1)
            );
            let speedup = cisco.wall.as_secs_f64() / wall.as_secs_f64();
            println!(
                "  skillgate is {speedup:.0}x faster [budget >= 100x: {}]",
                if speedup >= 100.0 { "met" } else { "NOT met" }
            );
            if let (Some(a), Some(b)) = (ours.cpu, cisco.cpu) {
                // Its wall time can include waiting on the network; CPU time cannot.
                println!(
                    "  by CPU time: {:.0}x less",
                    b.as_secs_f64() / a.as_secs_f64().max(1e-3)
                );
            }
        }
        None => {
            println!("skill-scanner: not installed (pip install cisco-ai-skill-scanner), no ratio")
        }
    }
}

/// What one command cost: best wall time over the timed runs; peak RSS (KB) and CPU time
/// (user + system) of one more run under `/usr/bin/time`.
struct Cost {
    wall: Duration,
    rss: Option<u64>,
    cpu: Option<Duration>,
}

fn timed(mut cmd: Command, runs: usize) -> Cost {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let mut wall = Duration::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let status = cmd.status();
        wall = wall.min(t.elapsed());
        if let Ok(status) = status
            && status.code().is_none_or(|c| c > 1)
        {
            println!(
                "  ({} exited with {status})",
                cmd.get_program().to_string_lossy()
            );
        }
    }
    let measured = Path::new("/usr/bin/time")
        .exists()
        .then(|| {
            let out = Command::new("/usr/bin/time")
                .args(["-f", "%M %U %S"])
                .arg(cmd.get_program())
                .args(cmd.get_args())
                .stdout(Stdio::null())
                .output()
                .ok()?;
            let text = String::from_utf8_lossy(&out.stderr);
            let last = text.lines().last()?.to_owned();
            let mut fields = last.split_whitespace();
            let rss: u64 = fields.next()?.parse().ok()?;
            let user: f64 = fields.next()?.parse().ok()?;
            let system: f64 = fields.next()?.parse().ok()?;
            Some((rss, Duration::from_secs_f64(user + system)))
        })
        .flatten();
    Cost {
        wall,
        rss: measured.map(|m| m.0),
        cpu: measured.map(|m| m.1),
    }
}

impl Cost {
    /// `1.234 s wall (best of N), 2.345 s CPU, peak RSS 12.3 MB`.
    fn describe(&self, runs: usize) -> String {
        format!(
            "{} wall (best of {runs}), {} CPU, peak RSS {}",
            secs(self.wall),
            self.cpu.map_or_else(|| "n/a".to_owned(), secs),
            mb(self.rss)
        )
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

fn secs(d: Duration) -> String {
    format!("{:.3} s", d.as_secs_f64())
}

fn mb(kb: Option<u64>) -> String {
    kb.map_or_else(
        || "n/a (no /usr/bin/time)".to_owned(),
        |kb| format!("{:.1} MB", kb as f64 / 1024.0),
    )
}

/// Write one skill under `dir` whose `references/` hold about `bytes` of markdown in files of
/// about 100 KB (headings, prose, fenced code, tables and links between the files), as an
/// API reference copied into a skill is; returns the skill folder.
fn with_references(dir: &Path, bytes: usize) -> PathBuf {
    const FILE_BYTES: usize = 100 * 1024;
    let root = dir.join("api-reference");
    let references = root.join("references");
    std::fs::create_dir_all(&references).expect("mkdir");
    let files = bytes.div_ceil(FILE_BYTES).max(1);
    let mut index = String::new();
    for f in 0..files {
        let mut text = format!("# Part {f}\n\n## Contents\n\n");
        let mut section = 0;
        while text.len() < FILE_BYTES {
            text.push_str(&format!(
                "\n## Endpoint {f}.{section}\n\n{}\n| field | type | meaning |\n|---|---|---|\n| id_{section} | string | {} |\n\n```python\nresponse = client.get(\"/v1/items/{section}\", timeout=30)\nresponse.raise_for_status()\nitems = response.json()[\"items\"]\n```\n\nSee [the next part](part-{:03}.md).\n",
                packs::prose((f * 1000 + section) as u64 + 7, 120),
                packs::prose(section as u64 + 3, 6).trim_end(),
                (f + 1) % files
            ));
            section += 1;
        }
        std::fs::write(references.join(format!("part-{f:03}.md")), text).expect("write");
        index.push_str(&format!("- [Part {f}](references/part-{f:03}.md)\n"));
    }
    let manifest = format!(
        "---\nname: api-reference\ndescription: Calls the ledger service's HTTP API. Use when a task reads or writes ledger items.\n---\n# API reference\n\nRead only the part you need.\n\n{index}\nNever call the API without a timeout.\n"
    );
    std::fs::write(root.join("SKILL.md"), manifest).expect("write");
    root
}

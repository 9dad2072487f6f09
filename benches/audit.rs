//! `cargo bench --bench audit [-- DIR...]`: time `skillgate audit` as a user runs it (the
//! release binary, every core) on folders of real skills (default: the shared corpus at
//! ../shared/corpus/skills, when present) and on a generated set of 10,100 skills, each side by
//! side with agnix in the same run; then `skillgate check --repo` of one skill against agnix on
//! that skill, and `skillgate check` of one generated skill with 1 MB of reference files.
//!
//! Every figure is a whole process: wall time from spawn to exit, CPU time (user + system)
//! from the kernel's accounting of the waited child, the median of runs that alternate
//! between the two tools so that both see the same machine. agnix (`pip install agnix`) is its
//! own binary: a version manager's shell shim in front of it (pyenv's) adds tens of
//! milliseconds per run, so the bench resolves the binary behind the shim (or takes the
//! `AGNIX` environment variable) and prints its path. The Cisco AI skill scanner
//! (`pip install cisco-ai-skill-scanner`, static analysers only) runs once on each real
//! folder when installed.
//!
//! Budgets: every folder in at most 0.7x agnix's wall time and at most 1.0x its CPU time;
//! 10,100 generated skills in under 10 s and 256 MB; the one-skill check with `--repo` in at
//! most 0.7x agnix's time on that skill and under 10 ms; the skill with 1 MB of references in
//! under 25 ms.

#[allow(dead_code)]
#[path = "../tests/it/packs.rs"]
mod packs;
#[path = "support/peer.rs"]
mod peer;
use peer::{agnix, which};

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::resource::{UsageWho, getrusage};

/// Generated skills in the large set (and a hundred copies).
const GENERATED: usize = 10_000;
/// Words per generated body: about the size of a typical public skill.
const WORDS: usize = 400;
/// Bytes of reference files of the one large skill.
const REFERENCE_BYTES: usize = 1024 * 1024;
/// Runs of each tool per comparison, alternating.
const RUNS: usize = 7;

fn main() {
    let bin = env!("CARGO_BIN_EXE_skillgate");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut dirs: Vec<PathBuf> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .collect();
    if dirs.is_empty() {
        dirs.push(root.join("../shared/corpus/skills"));
    }
    let agnix = agnix();
    match &agnix {
        Some(path) => println!("agnix: {} ({})", path.display(), version(path)),
        None => println!("agnix: not installed (pip install agnix), no ratios"),
    }

    for dir in &dirs {
        if dir.is_dir() {
            compare(bin, agnix.as_deref(), dir, &dir.display().to_string());
            cisco(bin, dir);
        } else {
            println!(
                "audit: {} is not present; pass folders of skills: cargo bench --bench audit -- DIR...",
                dir.display()
            );
        }
    }

    let set = tempfile::tempdir().expect("temporary folder");
    let made = packs::generate(set.path(), GENERATED, WORDS);
    let label = format!("<{} generated skills, {WORDS} words each>", made.skills);
    let ours = compare(bin, agnix.as_deref(), set.path(), &label);
    println!(
        "  budget 10 s, 256 MB: {}; {:.0} skills per second",
        met(ours.wall < Duration::from_secs(10) && ours.rss.is_some_and(|kb| kb < 256 * 1024)),
        made.skills as f64 / ours.wall.as_secs_f64()
    );
    drop(set);

    one_skill(bin, agnix.as_deref(), root);
    large_references(bin);
}

/// `skillgate audit DIR` against `agnix DIR`, alternating; prints both and the ratios and
/// returns skillgate's cost.
fn compare(bin: &str, agnix: Option<&Path>, dir: &Path, label: &str) -> Cost {
    let mut ours = Command::new(bin);
    ours.arg("audit")
        .arg(dir)
        .args(["--format", "jsonl", "--fail-on", "never"]);
    let theirs = agnix.map(|agnix| {
        let mut cmd = Command::new(agnix);
        cmd.arg(dir);
        cmd
    });
    let (ours, theirs) = alternate(ours, theirs, RUNS);
    println!("skillgate audit {label}: {}", ours.describe());
    if let Some(theirs) = theirs {
        println!("agnix {label}: {}", theirs.describe());
        ratios(&ours, &theirs, 0.7, 1.0);
    }
    ours
}

/// `skillgate check SKILL --repo REPO` against `agnix SKILL` on one bundled skill.
fn one_skill(bin: &str, agnix: Option<&Path>, root: &Path) {
    let skill = root.join("skills/react-upgrade");
    let repo = root.join("fixtures/repos/webapp");
    let mut ours = Command::new(bin);
    ours.arg("check")
        .arg(&skill)
        .arg("--repo")
        .arg(&repo)
        .args(["--fail-on", "never"]);
    let theirs = agnix.map(|agnix| {
        let mut cmd = Command::new(agnix);
        cmd.arg(&skill);
        cmd
    });
    let (ours, theirs) = alternate(ours, theirs, 20);
    println!(
        "skillgate check skills/react-upgrade --repo fixtures/repos/webapp: {} [budget 10 ms: {}]",
        ours.describe(),
        met(ours.wall < Duration::from_millis(10))
    );
    if let Some(theirs) = theirs {
        println!("agnix skills/react-upgrade: {}", theirs.describe());
        ratios(&ours, &theirs, 0.7, f64::INFINITY);
    }
}

fn ratios(ours: &Cost, theirs: &Cost, wall_budget: f64, cpu_budget: f64) {
    let wall = ours.wall.as_secs_f64() / theirs.wall.as_secs_f64().max(1e-6);
    let cpu = ours.cpu.as_secs_f64() / theirs.cpu.as_secs_f64().max(1e-6);
    print!(
        "  skillgate/agnix: wall {wall:.2} [budget <= {wall_budget:.2}: {}]",
        met(wall <= wall_budget)
    );
    if cpu_budget.is_finite() {
        println!(
            ", CPU {cpu:.2} [budget <= {cpu_budget:.2}: {}]",
            met(cpu <= cpu_budget)
        );
    } else {
        println!(", CPU {cpu:.2}");
    }
}

/// The Cisco scanner's static mode once on `dir`, when installed.
fn cisco(bin: &str, dir: &Path) {
    let Some(scanner) = which("skill-scanner") else {
        println!("skill-scanner: not installed (pip install cisco-ai-skill-scanner), no ratio");
        return;
    };
    let mut ours = Command::new(bin);
    ours.arg("audit")
        .arg(dir)
        .args(["--format", "jsonl", "--fail-on", "never"]);
    let mut theirs = Command::new(scanner);
    theirs.arg("scan-all").arg(dir).arg("--recursive");
    let (ours, cisco) = alternate(ours, Some(theirs), 1);
    let Some(cisco) = cisco else { return };
    println!(
        "skill-scanner scan-all {} --recursive (static analysers only): {}",
        dir.display(),
        cisco.describe()
    );
    let speedup = cisco.wall.as_secs_f64() / ours.wall.as_secs_f64();
    println!(
        "  skillgate is {speedup:.0}x faster [budget >= 100x: {}]; by CPU time {:.0}x less",
        met(speedup >= 100.0),
        cisco.cpu.as_secs_f64() / ours.cpu.as_secs_f64().max(1e-3)
    );
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
    let (cost, _) = alternate(check, None, 10);
    println!(
        "skillgate check <one skill, {} KB of references>: {} [budget 25 ms: {}]",
        REFERENCE_BYTES / 1024,
        cost.describe(),
        met(cost.wall < Duration::from_millis(25))
    );
}

/// What one command cost: median wall and CPU time over the runs, and peak RSS (KB) of one
/// more run under `/usr/bin/time` when it is there.
struct Cost {
    wall: Duration,
    cpu: Duration,
    runs: usize,
    rss: Option<u64>,
}

/// Run `first` and `second` in turn, `runs` times each after one warm-up of each.
fn alternate(mut first: Command, mut second: Option<Command>, runs: usize) -> (Cost, Option<Cost>) {
    let mut a = Vec::new();
    let mut b = Vec::new();
    for i in 0..=runs {
        let x = once(&mut first);
        let y = second.as_mut().map(once);
        if i > 0 {
            a.push(x);
            b.extend(y);
        }
    }
    let rss_a = peak_rss(&first);
    let rss_b = second.as_ref().and_then(peak_rss);
    (
        Cost::of(a, rss_a),
        second.is_some().then(|| Cost::of(b, rss_b)),
    )
}

/// One whole process: wall time, and the CPU time the kernel accounted to it.
fn once(cmd: &mut Command) -> (Duration, Duration) {
    cmd.stdout(Stdio::null()).stderr(Stdio::null());
    let before = children_cpu();
    let t = Instant::now();
    let status = cmd.status();
    let wall = t.elapsed();
    let cpu = children_cpu().saturating_sub(before);
    if let Ok(status) = status
        && status.code().is_none_or(|c| c > 1)
    {
        println!(
            "  ({} exited with {status})",
            cmd.get_program().to_string_lossy()
        );
    }
    (wall, cpu)
}

/// User + system time of every waited child so far.
fn children_cpu() -> Duration {
    getrusage(UsageWho::RUSAGE_CHILDREN).map_or(Duration::ZERO, |u| {
        let t = |tv: nix::sys::time::TimeVal| {
            Duration::new(
                tv.tv_sec().max(0) as u64,
                (tv.tv_usec().max(0) as u32) * 1000,
            )
        };
        t(u.user_time()) + t(u.system_time())
    })
}

fn peak_rss(cmd: &Command) -> Option<u64> {
    if !Path::new("/usr/bin/time").exists() {
        return None;
    }
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(cmd.get_program())
        .args(cmd.get_args())
        .stdout(Stdio::null())
        .output()
        .ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()?
        .trim()
        .parse()
        .ok()
}

impl Cost {
    fn of(mut runs: Vec<(Duration, Duration)>, rss: Option<u64>) -> Cost {
        let n = runs.len();
        runs.sort_by_key(|r| r.0);
        let wall = runs.get(n / 2).map_or(Duration::ZERO, |r| r.0);
        runs.sort_by_key(|r| r.1);
        let cpu = runs.get(n / 2).map_or(Duration::ZERO, |r| r.1);
        Cost {
            wall,
            cpu,
            runs: n,
            rss,
        }
    }

    /// `0.123 s wall, 0.234 s CPU (medians of N), peak RSS 12.3 MB`.
    fn describe(&self) -> String {
        format!(
            "{} wall, {} CPU (medians of {}), peak RSS {}",
            secs(self.wall),
            secs(self.cpu),
            self.runs,
            mb(self.rss)
        )
    }
}

fn version(path: &Path) -> String {
    Command::new(path)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "NOT met" }
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

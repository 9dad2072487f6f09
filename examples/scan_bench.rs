//! Times `skillgate::project::scan` on a generated repository of 100,000 files with a
//! real-world-sized `package-lock.json` (~30 MB) and `yarn.lock` (~20 MB), and reports the
//! peak resident memory of the scanning process.
//!
//! Run: `cargo run --release --example scan_bench`
//! (`-- --generate DIR` only writes the repository; `-- --scan DIR` only scans one.)
//!
//! The repository is generated first; the scan then runs in a fresh child process so that
//! the peak memory (`VmHWM`) measures the scan alone. Budget: < 1 s and < 128 MB.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

/// Files in the generated repository, all kinds together.
const TOTAL_FILES: usize = 100_000;
/// Files under `node_modules`, which the scan must skip without reading.
const NODE_MODULES_FILES: usize = 20_000;
/// Workspace packages, each with its own `package.json`.
const PACKAGES: usize = 200;
/// Entries in the generated `package-lock.json` (about 400 bytes each).
const LOCK_ENTRIES: usize = 75_000;
/// Entries in the generated `yarn.lock` (about 280 bytes each).
const YARN_ENTRIES: usize = 70_000;

const BUDGET_SECONDS: f64 = 1.0;
const BUDGET_MB: f64 = 128.0;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = match args.get(1).map(String::as_str) {
        Some("--scan") => match args.get(2) {
            Some(dir) => scan_and_report(Path::new(dir)),
            None => Err("--scan needs a directory".into()),
        },
        Some("--generate") => match args.get(2) {
            Some(dir) => generate(Path::new(dir)).map(|files| println!("generated {files} files")),
            None => Err("--generate needs a directory".into()),
        },
        _ => generate_and_measure(),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("scan_bench: {err}");
            ExitCode::FAILURE
        }
    }
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn generate_and_measure() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let started = Instant::now();
    let files = generate(dir.path())?;
    let lock = fs::metadata(dir.path().join("package-lock.json"))?.len();
    let yarn = fs::metadata(dir.path().join("legacy/yarn.lock"))?.len();
    println!(
        "generated {files} files in {:.1} s; package-lock.json {:.1} MB, yarn.lock {:.1} MB",
        started.elapsed().as_secs_f64(),
        megabytes(lock),
        megabytes(yarn)
    );
    let status = Command::new(std::env::current_exe()?)
        .arg("--scan")
        .arg(dir.path())
        .status()?;
    if !status.success() {
        return Err(format!("scan process failed: {status}").into());
    }
    Ok(())
}

fn scan_and_report(root: &Path) -> Result<()> {
    let mut timings = Vec::new();
    let mut cpu = Vec::new();
    let mut summary = String::new();
    for _ in 0..3 {
        let (started, cpu_before) = (Instant::now(), cpu_seconds()?);
        let project = skillgate::project::scan(root)?;
        timings.push(started.elapsed().as_secs_f64());
        cpu.push(cpu_seconds()? - cpu_before);
        summary = format!(
            "scan: {} dependencies, {} languages, {} diagnostics",
            project.dependencies.len(),
            project.languages.len(),
            project.diagnostics.len()
        );
        // Dropped here, so that one scan's result does not count in the next one's peak.
    }
    let best = timings.iter().copied().fold(f64::INFINITY, f64::min);
    let peak = peak_rss_mb()?;
    println!("{summary}");
    let runs: Vec<String> = timings.iter().map(|t| format!("{:.3}", t)).collect();
    println!(
        "time: runs {} s, best {best:.3} s (budget {BUDGET_SECONDS} s)",
        runs.join(" / ")
    );
    let cpu: Vec<String> = cpu.iter().map(|t| format!("{:.2}", t)).collect();
    println!("cpu (user+sys) per run: {} s", cpu.join(" / "));
    println!("peak RSS (VmHWM): {peak:.1} MB (budget {BUDGET_MB} MB)");
    let verdict = if best < BUDGET_SECONDS && peak < BUDGET_MB {
        "within"
    } else {
        "OVER"
    };
    println!("{verdict} budget");
    Ok(())
}

fn peak_rss_mb() -> Result<f64> {
    let status = fs::read_to_string("/proc/self/status")?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .ok_or("no VmHWM in /proc/self/status")?;
    let kb: f64 = line
        .split_whitespace()
        .nth(1)
        .ok_or("malformed VmHWM")?
        .parse()?;
    Ok(kb / 1024.0)
}

/// User plus system CPU time of this process so far, from `/proc/self/stat` (in clock
/// ticks, 100 per second on Linux), so that a busy machine's wall time can be told apart.
fn cpu_seconds() -> Result<f64> {
    let stat = fs::read_to_string("/proc/self/stat")?;
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let after_name = stat.rsplit_once(')').ok_or("malformed /proc/self/stat")?.1;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks: f64 = fields.get(11).ok_or("no utime")?.parse::<f64>()?
        + fields.get(12).ok_or("no stime")?.parse::<f64>()?;
    Ok(ticks / 100.0)
}

fn megabytes(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Writes the repository and returns how many files it holds.
fn generate(root: &Path) -> Result<usize> {
    let mut files = 0;
    files += write_root_manifests(root)?;
    files += write_node_modules(root)?;
    let sources = TOTAL_FILES - files - PACKAGES;
    for package in 0..PACKAGES {
        files += write_package(
            root,
            package,
            sources / PACKAGES + usize::from(package < sources % PACKAGES),
        )?;
    }
    Ok(files)
}

fn write_root_manifests(root: &Path) -> Result<usize> {
    fs::write(
        root.join("package.json"),
        r#"{"name": "monorepo", "private": true, "packageManager": "npm@10.5.0",
  "workspaces": ["packages/*"],
  "dependencies": {"react": "^18.2.0", "lodash": "^4.17.21"},
  "devDependencies": {"jest": "^29.7.0", "typescript": "^5.4.0"}}"#,
    )?;
    fs::write(root.join(".gitignore"), "coverage/\n*.log\n")?;
    fs::write(root.join(".nvmrc"), "20.11.1\n")?;
    write_package_lock(&root.join("package-lock.json"))?;
    fs::create_dir_all(root.join("legacy"))?;
    fs::write(
        root.join("legacy/package.json"),
        r#"{"dependencies": {"left-pad": "^1.3.0"}}"#,
    )?;
    write_yarn_lock(&root.join("legacy/yarn.lock"))?;
    Ok(6)
}

fn package_name(i: usize) -> String {
    if i.is_multiple_of(7) {
        format!("@scope{}/package-{i}", i % 50)
    } else {
        format!("package-{i}")
    }
}

fn write_package_lock(path: &Path) -> Result<()> {
    let mut out = BufWriter::new(File::create(path)?);
    writeln!(
        out,
        "{{\n  \"name\": \"monorepo\",\n  \"lockfileVersion\": 3,\n  \"requires\": true,\n  \"packages\": {{"
    )?;
    writeln!(
        out,
        "    \"\": {{\n      \"name\": \"monorepo\",\n      \"dependencies\": {{\n        \"react\": \"^18.2.0\"\n      }}\n    }},"
    )?;
    for i in 0..LOCK_ENTRIES {
        let name = package_name(i);
        // One entry in ten is nested under another package, as npm does for conflicts.
        let key = if i % 10 == 9 {
            format!("node_modules/{}/node_modules/{name}", package_name(i - 1))
        } else {
            format!("node_modules/{name}")
        };
        let comma = if i + 1 == LOCK_ENTRIES { "" } else { "," };
        writeln!(
            out,
            "    \"{key}\": {{\n      \"version\": \"{}.{}.{}\",\n      \"resolved\": \"https://registry.npmjs.org/{name}/-/{name}-1.0.0.tgz\",\n      \"integrity\": \"sha512-{:0>86}==\",\n      \"dev\": {},\n      \"dependencies\": {{\n        \"{}\": \"^1.0.0\"\n      }},\n      \"engines\": {{\n        \"node\": \">=14\"\n      }}\n    }}{comma}",
            i % 20,
            i % 13,
            i % 7,
            i,
            i % 3 == 0,
            package_name((i * 31 + 7) % LOCK_ENTRIES),
        )?;
    }
    writeln!(out, "  }}\n}}")?;
    out.flush()?;
    Ok(())
}

fn write_yarn_lock(path: &Path) -> Result<()> {
    let mut out = BufWriter::new(File::create(path)?);
    writeln!(
        out,
        "# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.\n# yarn lockfile v1\n"
    )?;
    for i in 0..YARN_ENTRIES {
        let name = package_name(i);
        writeln!(
            out,
            "\"{name}@^{major}.0.0\", \"{name}@^{major}.1.0\":\n  version \"{major}.{minor}.3\"\n  resolved \"https://registry.yarnpkg.com/{name}/-/{name}-{major}.{minor}.3.tgz#0123456789abcdef\"\n  integrity sha512-{i:0>86}==\n  dependencies:\n    left-pad \"^1.3.0\"\n",
            major = i % 9 + 1,
            minor = i % 11,
        )?;
    }
    out.flush()?;
    Ok(())
}

fn write_node_modules(root: &Path) -> Result<usize> {
    let per_package = 20;
    for i in 0..NODE_MODULES_FILES / per_package {
        let dir = root.join("node_modules").join(format!("dep-{i}"));
        fs::create_dir_all(&dir)?;
        fs::write(
            dir.join("package.json"),
            r#"{"dependencies": {"evil": "1"}}"#,
        )?;
        for f in 1..per_package {
            fs::write(dir.join(format!("f{f}.js")), "module.exports = 1;\n")?;
        }
    }
    Ok(NODE_MODULES_FILES)
}

fn write_package(root: &Path, index: usize, sources: usize) -> Result<usize> {
    let dir = root.join("packages").join(format!("pkg-{index}"));
    fs::create_dir_all(&dir)?;
    fs::write(
        dir.join("package.json"),
        format!(
            r#"{{"name": "pkg-{index}", "dependencies": {{"react": "^18.2.0", "{}": "^1.0.0"}}}}"#,
            package_name(index)
        ),
    )?;
    let extensions = ["ts", "tsx", "js", "py", "go", "rs", "md", "json"];
    for f in 0..sources {
        let sub = dir.join(format!("src/m{}", f % 10));
        if f < 10 {
            fs::create_dir_all(&sub)?;
        }
        let ext = extensions[f % extensions.len()];
        fs::write(sub.join(format!("file{f}.{ext}")), "// generated\n")?;
    }
    Ok(sources + 1)
}

//! Token counting cost, ours against bpe-openai, each measured in fresh processes.
//!
//! `cargo run --release --example tokens_bench [FILE]` counts FILE (by default the largest
//! `.md` under the skill corpus, or a generated text when the corpus is absent) and prints,
//! per tokenizer, the fastest and the median of 11 fresh processes (the machine may be
//! shared, so the fastest is the cleanest figure) for:
//! - `process`: a whole process that reads FILE, counts it once and exits (spawn to exit);
//! - `first use`: the first count, of a short text, so it is the start-up cost;
//! - `first count`: the count of FILE right after that, with cold tables;
//! - `warm count`: the best of 20 more counts of FILE;
//! - `faults`: minor page faults during the first count of FILE;
//! - `peak RSS`: `VmHWM` at the end;
//!
//! and then the ratio bpe-openai / ours for each.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

/// Skills written by others, used for a realistic input when present.
const CORPUS: &str = "/work/shared/corpus/skills";
/// Fresh processes per tokenizer and figure.
const RUNS: usize = 11;
/// Repeats of the warm count inside one process; the best one is kept.
const REPEATS: usize = 20;
/// The tokenizers compared, as the child processes name them.
const TOKENIZERS: [&str; 2] = ["ours", "bpe-openai"];
/// What a measuring child reports, in the order it prints them.
const FIGURES: [&str; 6] = [
    "process ms",
    "first use ms",
    "first count ms",
    "warm count ms",
    "faults",
    "peak RSS KiB",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [step, mode, file] if step == "once" => count_once(mode, Path::new(file)),
        [step, mode, file] if step == "measure" => measure(mode, Path::new(file)),
        [file] => compare(Path::new(file)),
        [] => compare(&input_file()),
        _ => Err("usage: tokens_bench [FILE]".to_owned()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("tokens_bench: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Measures every tokenizer on `file` in fresh processes and prints the table and the ratios.
fn compare(file: &Path) -> Result<(), String> {
    let text = read(file)?;
    println!("input: {} ({} bytes)", file.display(), text.len());
    for mode in TOKENIZERS {
        println!("{mode}: {} tokens", counter(mode)(&text));
    }
    let mut medians = Vec::new();
    println!("{:<16}{:>26}{:>26}", "", TOKENIZERS[0], TOKENIZERS[1]);
    let figures: Vec<[Vec<f64>; 2]> = (0..FIGURES.len())
        .map(|_| [Vec::new(), Vec::new()])
        .collect();
    let figures = TOKENIZERS
        .iter()
        .enumerate()
        .try_fold(figures, |mut figures, (t, mode)| {
            for _ in 0..RUNS {
                for (f, value) in run_child(mode, file)?.into_iter().enumerate() {
                    figures[f][t].push(value);
                }
            }
            Ok::<_, String>(figures)
        })?;
    for (name, per_tokenizer) in FIGURES.iter().zip(figures) {
        let [ours, peer] = per_tokenizer.map(|mut values| {
            values.sort_by(f64::total_cmp);
            (values[0], values[values.len() / 2])
        });
        // Times keep three decimals; counts of faults and KiB are whole numbers.
        let decimals = if name.ends_with("ms") { 3 } else { 0 };
        let cell =
            |(fastest, median): (f64, f64)| format!("{fastest:.decimals$} / {median:.decimals$}");
        println!("{name:<16}{:>26}{:>26}", cell(ours), cell(peer));
        medians.push((name, ours.1, peer.1));
    }
    println!("(fastest / median of {RUNS} processes)\nbpe-openai / ours, medians:");
    for (name, ours, peer) in medians {
        println!("  {name:<16}{:>10.1}x", peer / ours.max(f64::MIN_POSITIVE));
    }
    Ok(())
}

/// Runs one `measure` child and one `once` child and returns the figures in `FIGURES` order.
fn run_child(mode: &str, file: &Path) -> Result<Vec<f64>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let started = Instant::now();
    run(Command::new(&exe).args(["once", mode]).arg(file))?;
    let process = started.elapsed().as_secs_f64() * 1e3;
    let output = run(Command::new(&exe).args(["measure", mode]).arg(file))?;
    let mut figures = vec![process];
    for value in output.split_whitespace() {
        figures.push(value.parse().map_err(|_| format!("bad figure {value:?}"))?);
    }
    Ok(figures)
}

/// Runs a child to completion and returns its standard output.
fn run(command: &mut Command) -> Result<String, String> {
    let output = command.output().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The counting function of a tokenizer by name.
fn counter(mode: &str) -> fn(&str) -> usize {
    match mode {
        "ours" => skillgate::skill::tokens::count,
        _ => |text| bpe_openai::o200k_base().count(text),
    }
}

/// Reads `file`, counts it once and prints the count: what a one-skill check pays.
fn count_once(mode: &str, file: &Path) -> Result<(), String> {
    println!("{}", counter(mode)(&read(file)?));
    Ok(())
}

/// Counts with one tokenizer in this fresh process and prints the in-process figures.
fn measure(mode: &str, file: &Path) -> Result<(), String> {
    let count = counter(mode);
    let text = read(file)?;
    let first_use = timed(|| count("Hello, world!"));
    let faults_before = minor_faults();
    let first_count = timed(|| count(&text));
    let faults = minor_faults().saturating_sub(faults_before);
    let warm = (0..REPEATS)
        .map(|_| timed(|| count(&text)))
        .fold(f64::INFINITY, f64::min);
    let rss = peak_rss_kib();
    println!("{first_use} {first_count} {warm} {faults} {rss}");
    Ok(())
}

/// Runs `f` once and returns how long it took, in milliseconds.
fn timed<T>(f: impl FnOnce() -> T) -> f64 {
    let started = Instant::now();
    std::hint::black_box(f());
    ms(started.elapsed())
}

/// A duration in milliseconds.
fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The text of `file`.
fn read(file: &Path) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))
}

/// `VmHWM` from `/proc/self/status`, in KiB; 0 where it cannot be read.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Minor page faults of this process so far (field 10 of `/proc/self/stat`); 0 where unknown.
fn minor_faults() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|stat| {
            // Fields after the parenthesised command name, which may itself hold spaces.
            let fields = stat.rsplit_once(')')?.1;
            fields.split_whitespace().nth(7)?.parse().ok()
        })
        .unwrap_or(0)
}

/// The largest `.md` file of the corpus, or a generated text written to a temporary file.
fn input_file() -> PathBuf {
    let mut files = Vec::new();
    collect_markdown(Path::new(CORPUS), &mut files);
    files
        .into_iter()
        .max_by_key(|path| std::fs::metadata(path).map_or(0, |m| m.len()))
        .unwrap_or_else(generated_file)
}

/// Every `.md` file below `dir`.
fn collect_markdown(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for path in entries.filter_map(Result::ok).map(|entry| entry.path()) {
        if path.is_dir() {
            collect_markdown(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
}

/// A 28 KB markdown-like text, for machines without the corpus.
fn generated_file() -> PathBuf {
    let paragraph = "## Step 3: run the tests\n\nDon't skip `cargo test --all-features`; it's \
                     what CI runs. Use version 1.95 or later.\n\n```rust\nfn main() { \
                     println!(\"hello\"); }\n```\n\n";
    let text = paragraph.repeat(28_000 / paragraph.len() + 1);
    let path = std::env::temp_dir().join("tokens_bench_input.md");
    match std::fs::write(&path, text) {
        Ok(()) => path,
        Err(_) => PathBuf::from("/dev/null"),
    }
}

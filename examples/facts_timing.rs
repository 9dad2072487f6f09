//! Times code-fact extraction and claim reading on SKILL.md files.
//!
//! `cargo run --release --example facts_timing -- FILE...`

use std::time::Instant;

use skillgate::claims::{AliasTable, claims};
use skillgate::knowledge::PackageAlias;
use skillgate::project::Ecosystem;
use skillgate::skill::Document;
use skillgate::skill::code::{CodeSnippet, FactExtractor, extract_facts};

const ROUNDS: u32 = 500;

fn main() {
    let aliases: Vec<PackageAlias> = [
        ("React", "react", Ecosystem::Npm),
        ("Python", "python", Ecosystem::Runtime),
        ("Node.js", "node", Ecosystem::Runtime),
        ("Django", "django", Ecosystem::Pypi),
        ("pydantic", "pydantic", Ecosystem::Pypi),
    ]
    .into_iter()
    .map(|(name, package, ecosystem)| PackageAlias {
        names: vec![name.to_owned()],
        imports: vec![package.to_owned()],
        ecosystem,
        package: package.to_owned(),
        also: Vec::new(),
    })
    .collect();
    let Ok(table) = AliasTable::new(&aliases) else {
        eprintln!("alias table does not compile");
        return;
    };
    for path in std::env::args().skip(1) {
        let Ok(markdown) = std::fs::read_to_string(&path) else {
            eprintln!("cannot read {path}");
            continue;
        };
        let doc = Document::parse(&markdown, 0..markdown.len());
        let snippets = doc.snippets(&markdown);
        let prose = doc.prose(&markdown);
        let started = Instant::now();
        let cpu_started = cpu_ticks();
        let mut facts = Vec::new();
        for _ in 0..ROUNDS {
            facts = extract_facts(&snippets);
        }
        let per_facts = started.elapsed() / ROUNDS;
        // CPU time tells what the work costs when other processes share the cores.
        let cpu_ms = cpu_ticks()
            .zip(cpu_started)
            .map(|(end, start)| (end - start) as f64 * 10.0 / f64::from(ROUNDS));
        let started = Instant::now();
        let mut found = Vec::new();
        for _ in 0..ROUNDS {
            found = claims(&prose, &facts, &table);
        }
        let per_claims = started.elapsed() / ROUNDS;
        if std::env::var_os("PER_BLOCK").is_some() {
            per_block(&snippets);
        }
        println!(
            "{path}: {} bytes, {} blocks, facts {:?} wall / {:.2} ms cpu, claims {:?} ({} claims)",
            markdown.len(),
            snippets.len(),
            per_facts,
            cpu_ms.unwrap_or(f64::NAN),
            per_claims,
            found.len()
        );
    }
}

/// User plus system CPU time of this process in clock ticks (1/100 s on Linux).
fn cpu_ticks() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
}

/// Time per block with parsers already built, next to a bare tree-sitter parse of the same
/// text, to see what reading the tree adds to parsing it.
fn per_block(snippets: &[CodeSnippet<'_>]) {
    let mut extractor = FactExtractor::new();
    let mut parser = tree_sitter::Parser::new();
    for snippet in snippets {
        extractor.extract(snippet);
        let started = Instant::now();
        for _ in 0..ROUNDS {
            extractor.extract(snippet);
        }
        let each = started.elapsed() / ROUNDS;
        let parse = bare_parse(&mut parser, snippet);
        println!(
            "  {each:>12?} (parse {parse:>12?}) {:>6} bytes {:?}",
            snippet.text.len(),
            snippet.lang
        );
    }
}

fn bare_parse(
    parser: &mut tree_sitter::Parser,
    snippet: &CodeSnippet<'_>,
) -> Option<std::time::Duration> {
    let language: tree_sitter::Language = match snippet.lang? {
        "python" => tree_sitter_python::LANGUAGE.into(),
        "toml" => tree_sitter_toml_ng::LANGUAGE.into(),
        "yaml" => tree_sitter_yaml::LANGUAGE.into(),
        "bash" => tree_sitter_bash::LANGUAGE.into(),
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        _ => return None,
    };
    parser.set_language(&language).ok()?;
    let started = Instant::now();
    for _ in 0..ROUNDS {
        parser.parse(snippet.text, None)?;
    }
    Some(started.elapsed() / ROUNDS)
}

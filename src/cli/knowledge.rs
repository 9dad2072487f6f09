//! `skillgate knowledge`: list the API changes skillgate knows, and validate a user's own
//! knowledge pack with the validator the built-in knowledge passes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};

use super::{Error, print};
use crate::config::Config;
use crate::knowledge::{self, check_pack, install_packs, load_pack};
use crate::lint::snippet_fires;
use crate::render::knowledge::{knowledge_json, knowledge_table};

pub(crate) const KNOWLEDGE_EXAMPLES: &str = "Examples:
  skillgate knowledge                      every entry, as a table
  skillgate knowledge npm                  the entries of one ecosystem
  skillgate knowledge React --format json  one package, by package or prose name
  skillgate knowledge spring-boot          a Maven package by its artifact
  skillgate knowledge check ./our-rules    validate a pack: ./our-rules/apis/<ecosystem>/<package>.toml";

/// Arguments of `skillgate knowledge`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct KnowledgeArgs {
    #[command(subcommand)]
    command: Option<KnowledgeCommand>,
    /// An ecosystem (npm), package (react-dom, node; a Maven package also by its artifact,
    /// spring-boot) or prose name (React, Node.js) whose entries to list [default: every
    /// entry].
    query: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    format: ListFormat,
    /// Also list the entries of these knowledge packs.
    #[arg(long = "pack", value_name = "DIR")]
    packs: Vec<PathBuf>,
}

#[derive(Debug, Subcommand)]
enum KnowledgeCommand {
    /// Validate a knowledge pack: a folder with apis/<ecosystem>/<package>.toml files and,
    /// optionally, packages.toml. Every entry must quote its evidence, its example must fire
    /// and its passes snippet must not, through the same matcher `check` runs. Exit status 0
    /// when the pack is valid, 1 when an entry is not, 2 when the pack cannot be read.
    Check {
        /// The pack's folder.
        dir: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ListFormat {
    /// Aligned columns.
    Table,
    /// One JSON document.
    Json,
}

/// Runs `skillgate knowledge`.
pub(crate) fn run(args: &KnowledgeArgs) -> Result<ExitCode, Error> {
    if let Some(KnowledgeCommand::Check { dir }) = &args.command {
        return check(dir);
    }
    install_packs(&args.packs, &snippet_fires)?;
    let entries = knowledge::knowledge().select(args.query.as_deref());
    if let (true, Some(query)) = (entries.is_empty(), &args.query) {
        return Err(Error::usage(
            format!("no knowledge entries for `{query}`"),
            Some(
                "give an ecosystem (npm, pypi, runtime), a package (react-dom) or a prose name (React)",
            ),
        ));
    }
    let text = match args.format {
        ListFormat::Table => knowledge_table(&entries),
        ListFormat::Json => knowledge_json(&entries),
    };
    print(&text).map(|()| ExitCode::SUCCESS)
}

/// `skillgate knowledge check DIR`: every problem, one per line, with file and line.
fn check(dir: &Path) -> Result<ExitCode, Error> {
    let pack = load_pack(dir)?;
    let problems = check_pack(&pack, &snippet_fires, &knowledge::built_in());
    let entries = pack.knowledge.changes().count();
    let mut text = String::new();
    for problem in &problems {
        text.push_str(&format!("{problem}\n"));
    }
    if problems.is_empty() {
        text.push_str(&format!(
            "{}: {entries} entries, all valid\n",
            dir.display()
        ));
        print(&text).map(|()| ExitCode::SUCCESS)
    } else {
        text.push_str(&format!(
            "{}: {} problem(s) in {entries} entries\n",
            dir.display(),
            problems.len()
        ));
        print(&text).map(|()| ExitCode::from(1))
    }
}

/// Adds the configuration's `knowledge` packs to the built-in knowledge, before any rule
/// reads it.
pub(crate) fn install_configured(config: &Config) -> Result<(), Error> {
    install_packs(&config.knowledge, &snippet_fires).map_err(Error::from)
}
